#!/usr/bin/env python3
"""A worker that serves its devices from its device rows, against one that holds them all,
measured from outside: memory, and a restart.

COUNT offline devices get a message each, sent before any worker starts, and with
`--topics-per-device N` are subscribed to N topics each. Then, one after the other, two workers
read those inputs, each in a consumer group (and internal topics) of its own, with a state
directory and device rows:
  held     every device in memory (the baseline);
  served   `state.devices_held` LIMIT.
Each reads every input (its consumer lag is 0, its devices gauge at least COUNT and its
memberships gauge at least COUNT x N), is stopped (SIGTERM) and started again on its state
directory. Reported for each: its RSS once it has read every input and its peak (`VmRSS`,
`VmHWM`), the seconds to read them, and for the restart: the seconds from its start to its
group's assignment (the broker's join), to "restored device state" (and the restore's own, which
that line logs) and to the first inbox record of a device new to it (connected, and sent a
message, while the worker was down: back in service; also counted from the assignment, the part
that is the worker's), its RSS when restored and 15 seconds later (when the served one holds
about LIMIT devices again), and its peak. `--served-only` leaves the baseline out, for
sizes whose held worker would not fit the machine. `--rows-lost` deletes the device rows before
the restart, as a lost volume would: the restart reads every device into memory and writes the
rows whole again.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))

import outside  # noqa: E402
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from outside import Fleet, create_topics, preload, worker_environment  # noqa: E402


def log(message):
    outside.log("served", message)


def memory(pid):
    """The process's resident memory now and at its peak, in MiB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    return tuple(int(fields[name].split()[0]) / 1024 for name in ("VmRSS", "VmHWM"))


def wait_for(log_path, pattern, timeout, since=0):
    """The first match of `pattern` in the log after byte `since`, waited for."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(log_path, encoding="utf-8", errors="replace") as file:
            file.seek(since)
            match = re.search(pattern, file.read())
        if match:
            return match
        time.sleep(0.05)
    raise TimeoutError(f"no {pattern!r} in {log_path} within {timeout} s")


def gauges(address):
    with urllib.request.urlopen(f"http://{address}/metrics", timeout=10) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def preload_subscriptions(bootstrap, topic, count, topics_per_device):
    """Devices `offline-<n>` subscribed to topics `topic-0` ... in requests of 1,000 tokens."""
    if topics_per_device == 0:
        return
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    for number in range(topics_per_device):
        for first in range(0, count, 1000):
            tokens = [f"offline-{n:08d}" for n in range(first, min(first + 1000, count))]
            value = json.dumps({"action": "subscribe", "topic": f"topic-{number}", "tokens": tokens})
            outside.produce(producer, topic, f"topic-{number}", value)
    producer.flush(120)


def read_everything(address, count, memberships, timeout):
    """Waits until the worker has every device (the runs before may have sent to one more each)
    and membership, and no lag on its inputs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        samples = gauges(address)
        lag = sum(v for k, v in samples.items() if k.startswith("fcm_bridge_consumer_lag{"))
        if (samples.get("fcm_bridge_devices", 0) >= count
                and samples.get("fcm_bridge_topic_memberships", 0) >= memberships and lag == 0):
            return samples
        time.sleep(0.5)
    raise TimeoutError(f"the worker did not read every send within {timeout} s")


def connect_and_send(bootstrap, topics, token):
    """A connect of `token` and a send to it, for a worker that is down to read when it starts."""
    producer = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random"})
    producer.produce(topics["presence"], key=token, value=json.dumps({"token": token, "event": "connect"}))
    producer.produce(topics["send"], key=token, value=json.dumps({"message": {"token": token, "data": {"n": "1"}}}))
    producer.flush(30)


class FirstInboxRecord(threading.Thread):
    """Reads an inbox topic from its beginning until a record keyed `token` arrives; `seen` is
    when (monotonic) it was read. Started before the worker, so that the time is the record's
    arrival, not the reader's start."""

    def __init__(self, bootstrap, topic, partitions, token, timeout):
        super().__init__(daemon=True)
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": f"served-inbox-{uuid.uuid4()}", "enable.auto.commit": False,
            "isolation.level": "read_committed", "fetch.wait.max.ms": 10,
        })
        self.consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        self.token, self.timeout, self.seen = token.encode(), timeout, None

    def run(self):
        deadline = time.monotonic() + self.timeout
        try:
            while self.seen is None and time.monotonic() < deadline:
                for message in self.consumer.consume(100, 0.05):
                    if not message.error() and message.key() == self.token:
                        self.seen = time.monotonic()
        finally:
            self.consumer.close()


def measure(name, arguments, inputs, run_dir, extra):
    group = f"{name}-{uuid.uuid4().hex[:8]}"
    topics = create_topics(arguments.bootstrap, group, arguments.partitions)
    topics.update(inputs)
    environment = worker_environment(arguments.bootstrap, group, topics, arguments.partitions, "exactly_once")
    environment.update({
        "FCM_BRIDGE_STATE_DIRECTORY": os.path.join(run_dir, f"state-{name}"),
        "FCM_BRIDGE_STATE_DEVICE_ROWS": "true",
    })
    environment.update(extra)
    fleet = Fleet(arguments.binary, environment, run_dir)
    log_path = os.path.join(run_dir, f"worker-{name}.log")
    result = {}
    try:
        started = time.monotonic()
        fleet.start(name)
        address = wait_for(log_path, r"address=(\S+) \S+.*http endpoints listening", 60).group(1)
        read_everything(address, arguments.devices, arguments.devices * arguments.topics_per_device, arguments.timeout)
        result["read_seconds"] = time.monotonic() - started
        result["rss"], result["peak"] = memory(fleet.workers[name].pid)
        fleet.stop(name)
        if arguments.rows_lost:
            state = environment["FCM_BRIDGE_STATE_DIRECTORY"]
            for rows in (entry for entry in os.listdir(state) if entry.endswith(".rows")):
                shutil.rmtree(os.path.join(state, rows))
        fresh = f"fresh-{group}"
        connect_and_send(arguments.bootstrap, topics, fresh)
        inbox = FirstInboxRecord(arguments.bootstrap, topics["inbox"], arguments.partitions, fresh, arguments.timeout)
        inbox.start()
        since = os.path.getsize(log_path)
        started = time.monotonic()
        fleet.start(name)
        wait_for(log_path, r"partitions assigned", arguments.timeout, since)
        result["assigned_seconds"] = time.monotonic() - started
        restored = wait_for(log_path, r"took=([0-9.]+) seconds.*restored device state", arguments.timeout, since)
        result["restart_seconds"] = time.monotonic() - started
        result["restore_seconds"] = float(restored.group(1))
        inbox.join()
        if inbox.seen is None:
            raise TimeoutError(f"no inbox record of {fresh} within {arguments.timeout} s")
        result["back_seconds"] = inbox.seen - started
        result["assigned_to_back_seconds"] = result["back_seconds"] - result["assigned_seconds"]
        pid = fleet.workers[name].pid
        result["restart_rss"], _ = memory(pid)
        time.sleep(15)
        address = wait_for(log_path, r"address=(\S+) \S+.*http endpoints listening", 60, since).group(1)
        samples = gauges(address)
        result["restart_rss_later"], result["restart_peak"] = memory(pid)
        result["in_memory_later"] = samples.get("fcm_bridge_devices_in_memory")
    finally:
        fleet.stop_all()
    log(f"{name}: {result}")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS"))
    parser.add_argument("--binary", required=True)
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--limit", type=int, default=100_000, help="state.devices_held of the served worker")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--topics-per-device", type=int, default=0, help="topics each device is subscribed to")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument(
        "--served-only", action="store_true", help="no baseline: for sizes whose held worker would not fit memory")
    parser.add_argument(
        "--rows-lost", action="store_true", help="delete the device rows before the restart, which then rebuilds them")
    arguments = parser.parse_args()

    run = f"served-{uuid.uuid4().hex[:8]}"
    # The state directories hold gigabytes at the larger sizes: removed however the run ends. The
    # workers' logs stay, for a run that fails.
    run_dir = tempfile.mkdtemp(prefix=f"{run}-")
    try:
        inputs = {key: value for key, value in create_topics(arguments.bootstrap, run, arguments.partitions).items()
                  if key in ("send", "subscriptions")}
        log(f"sending to {arguments.devices} offline devices, a message each, "
            f"in {arguments.topics_per_device} topics each")
        preload(arguments.bootstrap, inputs["send"], arguments.devices)
        preload_subscriptions(
            arguments.bootstrap, inputs["subscriptions"], arguments.devices, arguments.topics_per_device)
        held = {} if arguments.served_only else measure("held", arguments, inputs, run_dir, {})
        served = measure(
            "served", arguments, inputs, run_dir, {"FCM_BRIDGE_STATE_DEVICES_HELD": str(arguments.limit)})
    finally:
        for name in ("held", "served"):
            shutil.rmtree(os.path.join(run_dir, f"state-{name}"), ignore_errors=True)
    print(f"\n{arguments.devices:,} offline devices with a message each, in {arguments.topics_per_device} topics "
          f"each, {arguments.partitions} partitions; served: state.devices_held {arguments.limit:,}\n")
    print("| | held (baseline) | served | served / held |")
    print("|---|---|---|---|")
    rows = [
        ("RSS once every input is read, MiB", "rss"), ("peak RSS while reading, MiB", "peak"),
        ("seconds to read every input", "read_seconds"),
        ("restart: seconds to the group's assignment", "assigned_seconds"),
        ("restart: seconds to restored", "restart_seconds"),
        ("restart: seconds to a new device's first message", "back_seconds"),
        ("restart: of those, after the assignment", "assigned_to_back_seconds"),
        ("restart: seconds the restore took (its log line)", "restore_seconds"),
        ("restart: RSS when restored, MiB", "restart_rss"), ("restart: RSS 15 s later, MiB", "restart_rss_later"),
        ("restart: peak RSS, MiB", "restart_peak"), ("restart: devices in memory 15 s later", "in_memory_later"),
    ]
    def shown(value):
        return "-" if value is None else f"{value:,.1f}"

    for label, key in rows:
        a, b = held.get(key), served.get(key)
        ratio = f"{b / a:.2f}" if a and b is not None else "-"
        print(f"| {label} | {shown(a)} | {shown(b)} | {ratio} |")


if __name__ == "__main__":
    main()
