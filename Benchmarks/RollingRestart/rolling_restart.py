#!/usr/bin/env python3
"""What a rolling restart and a joining worker cost the devices, measured from outside.

Two workers with static membership (`kafka.group_instance_id`) and state directories serve a
steady stream of sends to online devices, over offline devices with messages waiting. Then:

  restart   one worker is stopped (SIGTERM) and started again under its instance id and state
            directory, as a rolling deploy does;
  join      a third worker joins the group.

Reported, each against the same partitions' longest gap in a quiet window of the same run:
  - whether the other worker saw a rebalance during the restart (its log's assignments);
  - the restarted worker back in service: from its process start to the first inbox record, on
    a partition it owns, of a send made after that start;
  - the longest gap in the inbox partitions of the worker(s) that kept their partitions.
The restart's window runs from the stop to WINDOW seconds after the new start, the join's from
the third worker's start to WINDOW seconds after its restore: both longer than the quiet window,
which only makes the comparison stricter for them.
"""
import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition  # noqa: E402

import outside  # noqa: E402
from outside import Fleet, create_topics, preload, worker_environment  # noqa: E402


def log(message):
    outside.log("rolling", message)


class Inbox:
    """Receive times of inbox records per partition, with each record's send time."""

    def __init__(self, bootstrap, topic, partitions):
        self.records = []  # (partition, received, sent)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        # Every partition from its beginning, with no group to join: the inbox is empty until the
        # sends start, and reading begins at once.
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": f"rolling-inbox-{uuid.uuid4()}",
            "isolation.level": "read_committed", "fetch.wait.max.ms": 10, "enable.auto.commit": False,
        })
        self.consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopping.is_set():
            for message in self.consumer.consume(1000, 0.05):
                if message.error() or message.value() is None:
                    continue
                try:
                    data = json.loads(message.value())["apns"]["payload"]["bench_sent_at"]
                except (ValueError, KeyError, TypeError):
                    continue
                with self.lock:
                    self.records.append((message.partition(), time.monotonic(), float(data)))
        self.consumer.close()

    def close(self):
        self.stopping.set()
        self.thread.join(30)

    def longest_gaps(self, start, end, partitions):
        """Per partition, the longest time between records received in [start, end], counting
        from `start` and to `end`."""
        with self.lock:
            received = sorted((p, t) for p, t, _ in self.records if start <= t <= end and p in partitions)
        gaps = {}
        for partition in partitions:
            times = [start] + [t for p, t in received if p == partition] + [end]
            gaps[partition] = max(b - a for a, b in zip(times, times[1:]))
        return gaps

    def flowing(self, partitions):
        """The partitions that have received a record."""
        with self.lock:
            return {p for p, _, _ in self.records} & partitions

    def slowest_since(self, start):
        """The longest time from send to receipt of the records received since `start`."""
        with self.lock:
            return max((received - sent for _, received, sent in self.records if received >= start), default=None)

    def first_after(self, sent_after, partitions):
        """The first receive time of a record sent after `sent_after`, on one of `partitions`."""
        with self.lock:
            times = [t for p, t, sent in self.records if p in partitions and sent >= sent_after]
        return min(times) if times else None


def sender(bootstrap, topic, tokens, rate, stop):
    """Sends `rate` requests a second round the online `tokens`, each with its send time."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "partitioner": "murmur2_random"})
    interval, due, index = 1 / rate, time.monotonic(), 0
    while not stop.is_set():
        now = time.monotonic()
        while due <= now:
            token = tokens[index % len(tokens)]
            request = {"message": {"token": token, "data": {"bench_sent_at": repr(now)}}}
            producer.produce(topic, key=token, value=json.dumps(request))
            index, due = index + 1, due + interval
        producer.poll(0)
        time.sleep(min(interval, 0.005))
    producer.flush(30)


def presence(bootstrap, topic, tokens):
    producer = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random"})
    for token in tokens:
        producer.produce(topic, key=token, value=json.dumps({"token": token, "event": "connect"}))
    producer.flush(30)


def assigned(log_path, send_topic, since=0):
    """The send topic's partitions in the last assignment a worker's log shows after byte `since`."""
    with open(log_path, encoding="utf-8", errors="replace") as file:
        file.seek(since)
        lines = [line for line in file if "partitions assigned:" in line]
    if not lines:
        return set()
    return {int(p) for p in re.findall(r"(?<![\w.-])" + re.escape(send_topic) + r"\[(\d+)\]", lines[-1])}


def rebalances(log_path, since):
    with open(log_path, encoding="utf-8", errors="replace") as file:
        file.seek(since)
        return sum(1 for line in file if "partitions assigned:" in line or "partitions revoked" in line)


def restore_seconds(log_path, since):
    """What the first restore a worker's log shows after byte `since` took, in seconds."""
    with open(log_path, encoding="utf-8", errors="replace") as file:
        file.seek(since)
        match = re.search(r"took=([0-9.]+) seconds.*restored device state", file.read())
    return float(match.group(1)) if match else None


def wait_for(log_path, text, timeout, since=0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(log_path, encoding="utf-8", errors="replace") as file:
            file.seek(since)
            if text in file.read():
                return
        time.sleep(0.05)
    raise TimeoutError(f"no {text!r} in {log_path} within {timeout} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS"))
    parser.add_argument("--binary", required=True)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--online-devices", type=int, default=64)
    parser.add_argument("--offline-devices", type=int, default=100_000)
    parser.add_argument("--rate", type=int, default=400, help="sends a second to the online devices")
    parser.add_argument("--window", type=float, default=20, help="seconds of each measured window")
    parser.add_argument("--session-timeout-ms", type=int, default=15_000)
    parser.add_argument("--worker-env", action="append", default=[], metavar="NAME=VALUE",
                        help="a variable for every worker (FCM_BRIDGE_KAFKA_PROPERTIES_DEBUG=cgrp, say)")
    arguments = parser.parse_args()

    run = f"rolling-{uuid.uuid4().hex[:8]}"
    run_dir = tempfile.mkdtemp(prefix=f"{run}-")
    topics = create_topics(arguments.bootstrap, run, arguments.partitions)
    environment = worker_environment(arguments.bootstrap, run, topics, arguments.partitions, "exactly_once")
    environment["FCM_BRIDGE_KAFKA_CONSUMER_PROPERTIES_SESSION_TIMEOUT_MS"] = str(arguments.session_timeout_ms)
    environment.update(variable.split("=", 1) for variable in arguments.worker_env)
    fleet = Fleet(arguments.binary, environment, run_dir)
    logs = {slot: os.path.join(run_dir, f"worker-{slot}.log") for slot in "abc"}

    def start(slot):
        fleet.environment = dict(environment)
        fleet.environment["FCM_BRIDGE_KAFKA_GROUP_INSTANCE_ID"] = slot
        fleet.environment["FCM_BRIDGE_STATE_DIRECTORY"] = os.path.join(run_dir, f"state-{slot}")
        started = time.monotonic()
        fleet.start(slot)
        return started

    stop = threading.Event()
    try:
        log(f"preloading {arguments.offline_devices} offline devices with a message each")
        preload(arguments.bootstrap, topics["send"], arguments.offline_devices)
        start("a")
        start("b")
        for slot in "ab":
            wait_for(logs[slot], "restored device state", 300)
        tokens = [f"online-{uuid.uuid4().hex[:12]}" for _ in range(arguments.online_devices)]
        presence(arguments.bootstrap, topics["presence"], tokens)
        partitions = set(range(arguments.partitions))
        inbox = Inbox(arguments.bootstrap, topics["inbox"], arguments.partitions)
        threading.Thread(
            target=sender, args=(arguments.bootstrap, topics["send"], tokens, arguments.rate, stop), daemon=True
        ).start()
        deadline = time.monotonic() + 60
        while inbox.flowing(partitions) != partitions:
            if time.monotonic() > deadline:
                raise TimeoutError(f"records reached only inbox partitions {sorted(inbox.flowing(partitions))}")
            time.sleep(0.1)
        # The workers are through the preload once new sends arrive within a second again.
        while (slowest := inbox.slowest_since(time.monotonic() - 2)) is None or slowest > 1:
            if time.monotonic() > deadline + 600:
                raise TimeoutError(f"sends still take {slowest} s to arrive")
            time.sleep(1)
        owned_by_a = assigned(logs["a"], topics["send"])
        owned_by_b = assigned(logs["b"], topics["send"])
        log(f"a owns {sorted(owned_by_a)}, b owns {sorted(owned_by_b)}")

        quiet_start = time.monotonic()
        time.sleep(arguments.window)
        quiet = inbox.longest_gaps(quiet_start, time.monotonic(), partitions)

        log("restarting b under its instance id and state directory")
        a_log_size = os.path.getsize(logs["a"])
        b_log_size = os.path.getsize(logs["b"])
        restart_start = time.monotonic()
        fleet.stop("b")
        b_started = start("b")
        time.sleep(arguments.window)
        restart_end = time.monotonic()
        seen_by_a = rebalances(logs["a"], a_log_size)
        owned_again = assigned(logs["b"], topics["send"], b_log_size)
        back = inbox.first_after(b_started, owned_again or owned_by_b)
        restored_in = restore_seconds(logs["b"], b_log_size)
        during_restart = inbox.longest_gaps(restart_start, restart_end, owned_by_a)

        log("a third worker joins")
        before_join = {slot: (assigned(logs[slot], topics["send"]), os.path.getsize(logs[slot])) for slot in "ab"}
        join_start = time.monotonic()
        start("c")
        wait_for(logs["c"], "restored device state", 120)
        time.sleep(arguments.window)
        join_end = time.monotonic()
        moved = assigned(logs["c"], topics["send"])
        # What a and b each held before and hold after: the partitions that did not move.
        kept = set()
        for slot, (owned, since) in before_join.items():
            kept |= owned & assigned(logs[slot], topics["send"], since)
        during_join = inbox.longest_gaps(join_start, join_end, kept)
        inbox.close()
    finally:
        stop.set()
        fleet.stop_all()

    def longest(gaps, among):
        return max((gaps[p] for p in among), default=0)

    def ratio(value, baseline):
        return f"{value / baseline:.1f}" if baseline > 0 else "n/a"

    print(f"{arguments.partitions} partitions, {arguments.online_devices} online devices at "
          f"{arguments.rate} sends/s, {arguments.offline_devices} offline devices with a message each; "
          f"session timeout {arguments.session_timeout_ms} ms; logs in {run_dir}")
    print()
    print("| measure | this run | quiet baseline (same partitions) | ratio |")
    print("|---|---|---|---|")
    print(f"| rebalances the other worker saw during the restart | {seen_by_a} | 0 | |")
    if back is None:
        print("| restarted worker back in service (s) | never | | |")
    else:
        print(f"| restarted worker back in service: start to first new message (s) | {back - b_started:.2f} | | |")
    print(f"| of which its restore, from its log (s) | {restored_in} | | |")
    q, g = longest(quiet, owned_by_a), longest(during_restart, owned_by_a)
    print(f"| longest gap on the other worker's partitions during the restart (s) | {g:.2f} | {q:.2f} | {ratio(g, q)} |")
    q, g = longest(quiet, kept), longest(during_join, kept)
    print(f"| longest gap on the partitions a and b kept while a third worker joined (s) | {g:.2f} | {q:.2f} | "
          f"{ratio(g, q)} |")
    print(f"| partitions the third worker took; partitions a and b kept | {sorted(moved)}; {sorted(kept)} | | |")


if __name__ == "__main__":
    main()
