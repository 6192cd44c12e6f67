"""What the outside tools (chaos.py, fuzz.py) share: worker processes, the local broker, and
reading a topic from its beginning. They know the wire contract and the `fcm-bridge run`
command, not the code."""
import json
import os
import signal
import subprocess
import sys
import time
import uuid

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def log(tool, message):
    print(f"[{tool}] {message}", file=sys.stderr, flush=True)


def create_topics(bootstrap, run, partitions, extra=()):
    """Creates the contract's topics for a run, `<run>.send` ..., and `extra` (NewTopics); returns
    the names by role: send, presence, subscriptions, inbox, status, dlq."""
    topics = {name: f"{run}.{name}" for name in ("send", "presence", "subscriptions", "inbox", "status", "dlq")}
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(t, partitions, 1) for t in topics.values()] + list(extra)).values():
        future.result(30)
    return topics


def worker_environment(bootstrap, group, topics, partitions, delivery):
    """This process's environment without its FCM_BRIDGE_* variables, plus those that point a
    worker at `topics` in `group` (with short fetch waits and session timeouts, which tansu needs)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FCM_BRIDGE_")}
    environment.update({
        "FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS": bootstrap, "FCM_BRIDGE_KAFKA_GROUP_ID": group,
        "FCM_BRIDGE_TOPICS_SEND": topics["send"], "FCM_BRIDGE_TOPICS_PRESENCE": topics["presence"],
        "FCM_BRIDGE_TOPICS_INBOX": topics["inbox"], "FCM_BRIDGE_TOPICS_STATUS": topics["status"],
        "FCM_BRIDGE_TOPICS_DEAD_LETTERS": topics["dlq"], "FCM_BRIDGE_TOPICS_PARTITIONS": str(partitions),
        "FCM_BRIDGE_TOPICS_SUBSCRIPTIONS": topics["subscriptions"],
        "FCM_BRIDGE_DELIVERY": delivery, "FCM_BRIDGE_APNS_BUNDLE_ID": "com.example.outside",
        "FCM_BRIDGE_KAFKA_CONSUMER_PROPERTIES_FETCH_WAIT_MAX_MS": "10",
        "FCM_BRIDGE_KAFKA_CONSUMER_PROPERTIES_SESSION_TIMEOUT_MS": "6000",
        # Many workers on one machine: each its own free port for its endpoints.
        "FCM_BRIDGE_HTTP_LISTEN": "127.0.0.1:0",
    })
    return environment


def produce(producer, topic, key, value):
    """Produces one record, waiting while librdkafka's queue is full for deliveries to drain it."""
    while True:
        try:
            producer.produce(topic, key=key, value=value)
            break
        except BufferError:
            producer.poll(0.5)
    producer.poll(0)


def preload(bootstrap, topic, count):
    """One send (HTTP v1 shape, a data field) to each of `count` devices, `offline-<n>`."""
    producer = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random", "linger.ms": 20})
    for number in range(count):
        token = f"offline-{number:08d}"
        produce(producer, topic, token, json.dumps({"message": {"token": token, "data": {"n": "1"}}}))
    producer.flush(120)


class Fleet:
    """Worker processes by slot; a slot keeps its transactional id across restarts."""

    def __init__(self, binary, environment, run_dir):
        self.binary, self.environment, self.run_dir = binary, environment, run_dir
        self.workers = {}

    def start(self, slot):
        environment = dict(self.environment)
        environment["FCM_BRIDGE_KAFKA_TRANSACTIONAL_ID"] = f"{environment['FCM_BRIDGE_KAFKA_GROUP_ID']}-{slot}"
        output = open(os.path.join(self.run_dir, f"worker-{slot}.log"), "ab")
        self.workers[slot] = subprocess.Popen([self.binary, "run"], env=environment, stdout=output, stderr=output)
        log("fleet", f"worker {slot} started (pid {self.workers[slot].pid})")

    def kill(self, slot):
        process = self.workers.pop(slot)
        process.kill()
        process.wait()
        log("fleet", f"worker {slot} killed")

    def stop(self, slot, timeout=45):
        process = self.workers.pop(slot)
        process.send_signal(signal.SIGTERM)
        try:
            status = process.wait(timeout)
            log("fleet", f"worker {slot} stopped with status {status}")
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            log("fleet", f"worker {slot} did not stop within {timeout} s: killed")

    def live(self):
        return sorted(slot for slot, process in self.workers.items() if process.poll() is None)

    def crashed(self):
        return {slot: process.returncode for slot, process in self.workers.items() if process.poll() is not None}

    def stop_all(self):
        for slot in list(self.workers):
            if self.workers[slot].poll() is None:
                self.stop(slot)
            else:
                self.workers.pop(slot)


class Broker:
    """The local broker, through scripts/broker.sh (a restart keeps port and durable storage)."""

    def __init__(self, root, name):
        self.script, self.name = os.path.join(root, "scripts", "broker.sh"), name

    def restart(self, down_seconds):
        log("broker", f"down for {down_seconds:.1f} s")
        subprocess.run(["bash", self.script, "restart", self.name, f"{down_seconds:.1f}"], check=True)
        log("broker", "up")


def scan(bootstrap, topic, partitions, deadline, handle):
    """Calls `handle` with every committed record of `topic`, from the beginning to the end of
    each partition."""
    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": f"outside-reader-{uuid.uuid4()}", "enable.auto.commit": False,
        "isolation.level": "read_committed", "enable.partition.eof": True, "fetch.wait.max.ms": 10,
    })
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    ended = set()
    try:
        while len(ended) < partitions:
            if time.monotonic() > deadline:
                raise TimeoutError(f"reading {topic}: only partitions {sorted(ended)} reached their end")
            for message in consumer.consume(1000, 0.2):
                if message.error():
                    if message.error().code() == KafkaError._PARTITION_EOF:
                        ended.add(message.partition())
                    continue
                ended.discard(message.partition())
                handle(message)
    finally:
        consumer.close()


def read_topic(bootstrap, topic, partitions, deadline):
    """Every committed record of `topic`, from the beginning to the end of each partition."""
    records = []
    scan(bootstrap, topic, partitions, deadline, records.append)
    return records
