#!/usr/bin/env python3
"""Fuzzes a running fcm-bridge from outside: it knows the wire contract, not the code.

One worker (`fcm-bridge run`, configured through FCM_BRIDGE_* variables) reads --records records
(seeded), produced as fast as one producer can to the send, presence and subscriptions topics:
valid requests, presence events and subscription requests for a pool of devices (half of the
devices connect first; then devices/20 subscription requests are taken in before the rest is
sent), and mutations of them: truncated, bytes flipped,
values of the wrong type, nulls, huge strings, deep nesting, invalid UTF-8, random bytes, empty
and null values, 1,000 and more registration ids; null, empty, binary and huge keys; many and
huge headers; extreme timestamps. Every record but the extreme ones has a timestamp of its own
(the run's base time plus the record's index), which is how a status without a message id is
traced back to its record.

When the group's committed offsets reach the end of both inputs, it reads the status, dead
letter and inbox topics and accounts for every record:
  send      a status whose message_id (`<partition>:<offset>:<index>`, or a topic send's
            `fanned_out`) names the record, a `deleted_messages` listing it in its message_ids, a
            dead letter naming it (headers source-topic, source-partition, source-offset), or a
            `rejected` status without a message_id at the record's timestamp; a device's copy of a
            topic send (`<partition>:<offset>:0/<16 hex>`) must name a topic send that has its
            `fanned_out`
  presence  a dead letter or `rejected` status as above, or else processed (no output is owed)
  subscriptions  a `subscribed`, `unsubscribed` or `rejected` status at the record's timestamp,
            or a dead letter naming it
and checks every output: a JSON object, within its size bound, at most 1,000 statuses for one
record. It fails when the worker exits, a partition stalls, a send record is unaccounted for, an
output breaks its bound, or the worker's resident memory exceeds --max-rss-mb. Bounded in time;
loopback only.
"""
import argparse
import json
import os
import random
import re
import sys
import threading
import time
import uuid
from collections import Counter

from confluent_kafka import Consumer, Producer, TopicPartition

import outside
from outside import Fleet, create_topics, scan, worker_environment

MAX_STATUS_BYTES = 32 * 1024        # a token of at most 4,096 bytes, escaped, and a capped detail
MAX_RECORD_BYTES = 1_000_000        # the producer's message.max.bytes
MAX_STATUSES_PER_RECORD = 1000      # one per registration id
EXTREME_TIMESTAMPS = [-(2**63), -2, 1, 2**62, 2**63 - 2, 2**63 - 1]
MESSAGE_ID = re.compile(r"^(\d+):(\d+):(\d+)(/[0-9a-f]{16})?$")
TOPICS = ["news", "sport", "a-b_c.d~e%f"]


def log(message):
    outside.log("fuzz", message)


class Mutator:
    """Seeded records: valid ones for a pool of devices, and every kind of damage to them."""

    def __init__(self, rng, tokens):
        self.rng, self.tokens = rng, tokens

    def token(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.9:
            return rng.choice(self.tokens)
        return rng.choice(["", " ", "a:b", "\u0301combining", "t\u0000nul", "\ud7ff" * 3, "x" * rng.choice([4096, 4097, 20000])])

    def valid_send(self):
        rng, token = self.rng, self.token()
        notification = {"title": f"title {rng.randrange(10**6)}", "body": "body " * rng.randrange(1, 20)}
        data = {f"k{i}": f"v{rng.randrange(1000)}" for i in range(rng.randrange(4))}
        shape = rng.randrange(9)
        if shape == 0:
            return {"message": {"token": token, "notification": notification, "data": data,
                                "apns": {"headers": {"apns-priority": "5"}, "payload": {"aps": {"sound": "default"}}}}}
        if shape == 1:
            return {"to": token, "notification": dict(notification, badge=str(rng.randrange(100)), sound="default"),
                    "data": data, "priority": rng.choice(["high", "normal"]), "time_to_live": rng.choice([0, 60, 2419200])}
        if shape == 2:
            return {"to": token, "data": data, "content_available": True, "collapse_key": f"c{rng.randrange(8)}"}
        if shape == 3:
            count = rng.choice([999, 1000, 1001, 1500]) if rng.random() < 0.003 else rng.choice([1, 2, 5])
            return {"registration_ids": [self.token() for _ in range(count)], "notification": notification}
        if shape == 4:
            return {"validate_only": True, "message": {"token": token, "data": data}}
        if shape == 5:
            return {"dry_run": True, "to": token, "notification": notification}
        if shape == 6:
            return {"message": {"topic": rng.choice(TOPICS + ["/topics/news", "empty", "bad name", "x" * 901]),
                                "notification": notification, "data": data}}
        if shape == 7:
            return {"to": "/topics/" + rng.choice(TOPICS), "data": data, "collapse_key": f"c{rng.randrange(8)}"}
        return {"condition": rng.choice(["'news' in topics || 'sport' in topics", "'news' in topics && !('sport' in topics)",
                                         "!('news' in topics)", "(" * 10000 + "'news' in topics" + ")" * 10000,
                                         "'a' in topics || 'b' in topics || 'c' in topics || 'd' in topics || 'e' in topics || 'f' in topics"]),
                "notification": notification}

    def valid_presence(self):
        rng = self.rng
        event = {"token": self.token(), "event": rng.choice(["connect", "connect", "disconnect", "ack"])}
        if event["event"] == "ack":
            event["message_ids"] = [f"{rng.randrange(8)}:{rng.randrange(10**6)}:{rng.randrange(3)}" for _ in range(rng.randrange(4))]
        return event

    def hostile_value(self):
        rng = self.rng
        choice = rng.randrange(12)
        if choice == 0: return None
        if choice == 1: return rng.choice([0, -1, 2**63, -(2**70), 1e308, -0.0, 3.5])
        if choice == 2: return rng.choice([True, False])
        if choice == 3: return []
        if choice == 4: return {}
        if choice == 5: return "x" * rng.choice([64, 65, 300, 5000])
        if choice == 6: return ["a", 1, None, {"b": []}]
        if choice == 7: return {"from": "x", "gcm.key": "y", "google.z": "w", "message_type": "m"}
        if choice == 8: return "\u202e\u0000\ud7ff\U0001F600\"\\"
        if choice == 9: return [str(i) for i in range(rng.choice([10, 1001]))]
        if choice == 10: return rng.choice(["/topics/news", "'a' in topics", "!('a' in topics)"])
        return "-1"

    def replace_somewhere(self, document):
        """`document` with one value somewhere inside it replaced by a hostile one."""
        node, depth = document, 0
        while isinstance(node, (dict, list)) and node and depth < 4:
            keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
            key = self.rng.choice(keys)
            if not isinstance(node[key], (dict, list)) or not node[key] or self.rng.random() < 0.4:
                node[key] = self.hostile_value()
                return document
            node, depth = node[key], depth + 1
        if isinstance(node, dict):
            node[self.rng.choice(["notification", "data", "apns", "to", "token", "event", "extra"])] = self.hostile_value()
        return document

    def damage(self, text):
        """Byte-level damage to encoded JSON."""
        rng, data = self.rng, bytearray(text)
        kind = rng.randrange(7)
        if kind == 0 and data:
            return bytes(data[: rng.randrange(len(data))])
        if kind == 1:
            for _ in range(rng.randrange(1, 6)):
                if data: data[rng.randrange(len(data))] = rng.randrange(256)
            return bytes(data)
        if kind == 2:
            at = rng.randrange(len(data) + 1)
            return bytes(data[:at] + rng.choice([b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\\ud800", b"\x00"]) + data[at:])
        if kind == 3:
            return bytes(data) + rng.choice([b"}", b" trailing", b"{}", b"\x00"])
        if kind == 4:
            depth = 100_000 if rng.random() < 0.01 else rng.choice([99, 100, 101, 1000])
            opener, closer = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
            return opener * depth + b"1" + closer * rng.choice([depth, depth // 2])
        if kind == 5:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        return text.replace(b'":', b'":"dup","x":', 1) if rng.random() < 0.5 else text.replace(b"{", b'{"to":"a",', 1)

    def huge(self, document):
        """`document` with a string of up to 500 KB in it."""
        filler = "y" * self.rng.choice([5_000, 50_000, 500_000])
        target = document.get("message", document)
        if self.rng.random() < 0.5:
            target["data"] = {"big": filler}
        else:
            target[self.rng.choice(["token", "to", "collapse_key", "event"])] = filler
        return document

    def valid_subscription(self):
        rng = self.rng
        topic = rng.choice(["news", "/topics/sport", "a-b_c.d~e%f", "x" * 900, "x" * 901, "bad name", ""])
        count = rng.choice([1, 2, 5, 1000, 1001]) if rng.random() < 0.01 else rng.randrange(1, 6)
        return {"action": rng.choice(["subscribe", "subscribe", "unsubscribe", "join"]), "topic": topic,
                "tokens": [self.token() for _ in range(count)]}

    def value(self, topic):
        rng = self.rng
        document = {"send": self.valid_send, "presence": self.valid_presence,
                    "subscriptions": self.valid_subscription}[topic]()
        roll = rng.random()
        if roll < 0.35:
            return json.dumps(document).encode()
        if roll < 0.60:
            return json.dumps(self.replace_somewhere(document)).encode()
        if roll < 0.85:
            return self.damage(json.dumps(document).encode())
        if roll < 0.90:
            return rng.choice([None, b"", b"null", b"[]", b"{}", b"1", b'"x"'])
        if roll < 0.9995:
            return json.dumps(document, ensure_ascii=False).encode().replace(b"title", b"ti\xfftle", 1)
        return json.dumps(self.huge(document)).encode()

    def key(self, value):
        rng = self.rng
        roll = rng.random()
        if roll < 0.9:
            match = re.search(rb'"(?:to|token)": "([^"]{1,200})"', value or b"")
            return match.group(1) if match else None
        if roll < 0.999:
            return rng.choice([None, b"", b"\x00\xff\xfe", bytes(rng.randrange(256) for _ in range(32))])
        return b"k" * 10_000

    def headers(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.98:
            return None
        if roll < 0.9995:
            return [(f"h{i}", b"v") for i in range(200)]
        return [("huge", b"h" * 100_000)]


class ResidentMemory:
    """Samples the workers' resident memory twice a second and keeps the peak, in MB."""

    def __init__(self, fleet):
        self.fleet, self.peak, self.stopped = fleet, 0.0, threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        self.stopped.set()

    def sample(self):
        while not self.stopped.wait(0.5):
            for process in list(self.fleet.workers.values()):
                try:
                    with open(f"/proc/{process.pid}/status") as status:
                        kilobytes = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
                    self.peak = max(self.peak, kilobytes / 1024)
                except (OSError, StopIteration):
                    pass


class Accounts:
    """What the outputs say about the input records, by index (record i of the run)."""

    def __init__(self, count):
        self.covered = bytearray(count)
        self.statuses_per_record = Counter()  # the statuses a record caused itself (at its own time)
        self.anonymous_statuses = 0  # `rejected` without a message id, or a subscription's status, at no record's own time
        self.status_types = Counter()
        self.dead_letters = 0
        self.inbox_records = 0
        self.largest = Counter()
        self.broken = []  # outputs that break the contract's shape or a bound
        self.copies_of = Counter()  # statuses about devices' copies of a topic send, by the send's index
        self.fanned_out = set()  # topic sends with their `fanned_out`

    def check_size(self, kind, message, bound):
        size = len(message.value() or b"") + len(message.key() or b"")
        self.largest[kind] = max(self.largest[kind], size)
        if size > bound:
            self.broken.append(f"{kind} record of {size} bytes, over {bound}")

    def parse(self, kind, message):
        try:
            document = json.loads(message.value())
            if isinstance(document, dict):
                return document
        except (ValueError, TypeError):
            pass
        self.broken.append(f"{kind} record is not a JSON object: {bytes(message.value() or b'')[:80]!r}")
        return None


def audit(bootstrap, topics, partitions, index_of, base, count, untraceable):
    """Reads the status, dead letter and inbox topics from their beginning into Accounts."""
    accounts = Accounts(count)
    deadline = time.monotonic() + 600

    def own_index(at):
        index = at - base if isinstance(at, int) else -1
        return index if 0 <= index < count and index not in untraceable else None

    def status(message):
        accounts.check_size("status", message, MAX_STATUS_BYTES)
        event = accounts.parse("status", message)
        if event is None:
            return
        accounts.status_types[event.get("type")] += 1
        # A discarded queue lists its messages; any other event about a message names it.
        for message_id in event.get("message_ids", []) if event.get("type") == "deleted_messages" else [event.get("message_id")]:
            match = MESSAGE_ID.match(str(message_id))
            if not match:
                continue
            index = index_of.get((topics["send"], int(match[1]), int(match[2])))
            if index is None:
                accounts.broken.append(f"a status names no send record: {event}")
                return
            accounts.covered[index] = 1
            if match[4]:  # a device's copy of a topic send: one per member, over many inputs
                accounts.copies_of[index] += 1
            elif event.get("type") != "deleted_messages" and own_index(event.get("at")) == index:
                accounts.statuses_per_record[index] += 1
            if event.get("type") == "fanned_out":
                accounts.fanned_out.add(index)
        if event.get("type") in ("subscribed", "unsubscribed"):
            index = own_index(event.get("at"))
            if index is None:  # a record of an extreme timestamp
                accounts.anonymous_statuses += 1
            else:
                accounts.covered[index] = 1
                accounts.statuses_per_record[index] += 1
        if event.get("type") == "rejected" and "message_id" not in event:
            index = own_index(event.get("at"))
            if index is None:
                accounts.anonymous_statuses += 1
            else:
                accounts.covered[index] = 1

    def dead_letter(message):
        accounts.check_size("dead letter", message, MAX_RECORD_BYTES)
        accounts.dead_letters += 1
        headers = dict(message.headers() or [])
        try:
            source = (headers["source-topic"].decode(), int(headers["source-partition"]), int(headers["source-offset"]))
            accounts.covered[index_of[source]] = 1
        except (KeyError, ValueError, UnicodeDecodeError):
            accounts.broken.append(f"a dead letter names no input record: {headers}")

    def inbox(message):
        accounts.check_size("inbox", message, MAX_RECORD_BYTES)
        accounts.inbox_records += 1
        accounts.parse("inbox", message)

    scan(bootstrap, topics["status"], partitions, deadline, status)
    scan(bootstrap, topics["dlq"], partitions, deadline, dead_letter)
    scan(bootstrap, topics["inbox"], partitions, deadline, inbox)
    return accounts


def wait_for_drain(bootstrap, group, ends, fleet, deadline):
    """Waits until the group has committed every input record; returns the partitions still
    behind at the deadline (empty when none), or raises when the worker exits."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        while True:
            committed = consumer.committed([TopicPartition(t, p) for t, p in ends], timeout=30)
            behind = {(tp.topic, tp.partition): ends[(tp.topic, tp.partition)] - max(tp.offset, 0)
                      for tp in committed if tp.offset < ends[(tp.topic, tp.partition)]}
            if fleet.crashed():
                raise RuntimeError(f"the worker exited: {fleet.crashed()}")
            if not behind or time.monotonic() > deadline:
                return behind
            log(f"waiting for the worker: {sum(behind.values())} records not committed yet")
            time.sleep(5)
    finally:
        consumer.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--devices", type=int, default=2000, help="the pool of valid tokens; the first half connect first")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--delivery", choices=["exactly_once", "at_least_once"], default="exactly_once")
    parser.add_argument("--max-rss-mb", type=float, default=1024)
    parser.add_argument("--drain-seconds", type=float, default=900, help="how long the worker may take after the last record")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--run-dir", required=True)
    arguments = parser.parse_args()

    rng = random.Random(arguments.seed)
    bootstrap = os.environ["KAFKA_BOOTSTRAP_SERVERS"]
    run = f"fuzz-{arguments.seed}-{uuid.uuid4().hex[:6]}"
    topics = create_topics(bootstrap, run, arguments.partitions)

    environment = worker_environment(bootstrap, run, topics, arguments.partitions, arguments.delivery)
    fleet = Fleet(arguments.binary, environment, arguments.run_dir)
    rss = ResidentMemory(fleet)
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 20,
                         "partitioner": "murmur2_random", "message.timeout.ms": 300000,
                         "queue.buffering.max.messages": 1_000_000, "queue.buffering.max.kbytes": 1_048_576})
    count = arguments.records
    base = int(time.time() * 1000) - count  # record i's own timestamp is base + i
    index_of, ends, refused = {}, Counter(), Counter()
    is_send, is_subscription, untraceable, extremes = bytearray(count), bytearray(count), set(), 0

    def delivered(error, message, index):
        if error is not None:
            refused[error.name()] += 1
            return
        index_of[(message.topic(), message.partition(), message.offset())] = index
        ends[(message.topic(), message.partition())] = max(ends[(message.topic(), message.partition())], message.offset() + 1)
        if message.timestamp()[1] != base + index:
            untraceable.add(index)

    tokens = [f"{run}-device-{i}" for i in range(arguments.devices)]
    mutator = Mutator(rng, tokens)
    connects = arguments.devices // 2
    # Then subscriptions, taken in (both hops) before the rest comes: the stream's topic sends
    # then reach members, where subscriptions arriving with them would land behind them.
    subscribed = connects + arguments.devices // 20
    try:
        fleet.start(0)
        rss.start()
        started = time.monotonic()
        for index in range(count):
            if index == subscribed:
                producer.flush(300)
                wait_for_drain(bootstrap, run, ends, fleet, time.monotonic() + 120)
                time.sleep(3)  # the subscriptions' second hop, through the repartition topic
            if index < connects:
                topic, value = "presence", json.dumps({"token": tokens[index], "event": "connect"}).encode()
            elif index < subscribed:
                topic, value = "subscriptions", json.dumps(mutator.valid_subscription()).encode()
            else:
                roll = rng.random()
                topic = "send" if roll < 0.75 else "presence" if roll < 0.92 else "subscriptions"
                value = mutator.value(topic)
            is_send[index] = topic == "send"
            is_subscription[index] = topic == "subscriptions"
            timestamp = base + index if index < subscribed or rng.random() >= 0.002 else rng.choice(EXTREME_TIMESTAMPS)
            extremes += timestamp != base + index
            while True:
                try:
                    producer.produce(topics[topic], key=mutator.key(value), value=value, headers=mutator.headers(),
                                     timestamp=timestamp, on_delivery=lambda e, m, i=index: delivered(e, m, i))
                    break
                except BufferError:
                    producer.poll(0.1)
            producer.poll(0)
            if index % 100_000 == 0:
                log(f"{index} records produced in {time.monotonic() - started:.0f} s; worker RSS peak {rss.peak:.0f} MB")
        if producer.flush(300) > 0:
            log("the producer could not deliver every record in 300 s")
            return 1
        produced = time.monotonic()
        log(f"{count} records produced in {produced - started:.0f} s ({sum(refused.values())} refused: {dict(refused)})")
        behind = wait_for_drain(bootstrap, run, ends, fleet, produced + arguments.drain_seconds)
        drained = time.monotonic()
        accounts = audit(bootstrap, topics, arguments.partitions, index_of, base, count, untraceable)
        crashed = fleet.crashed()
    finally:
        rss.stop()
        fleet.stop_all()

    delivered_records = len(index_of)
    owed = lambda i: is_send[i] or is_subscription[i]  # noqa: E731: records that owe an output
    unaccounted = [i for i in index_of.values() if owed(i) and not accounts.covered[i] and i not in untraceable]
    untraced = sum(1 for i in untraceable if owed(i) and not accounts.covered[i])
    floods = [i for i, n in accounts.statuses_per_record.items() if n > MAX_STATUSES_PER_RECORD]
    failures = accounts.broken[:5]
    if behind: failures.append(f"partitions stalled: {behind}")
    if crashed: failures.append(f"the worker exited: {crashed}")
    if unaccounted: failures.append(f"{len(unaccounted)} send or subscription records unaccounted for, e.g. indices {unaccounted[:5]}")
    if len(untraceable) > extremes:
        failures.append(f"{len(untraceable) - extremes} records came back with a timestamp other than their own (LogAppendTime?)")
    if untraced > accounts.anonymous_statuses:
        failures.append(f"{untraced} send or subscription records with extreme timestamps unaccounted for, {accounts.anonymous_statuses} untraced statuses")
    if floods: failures.append(f"{len(floods)} records with over {MAX_STATUSES_PER_RECORD} statuses")
    unfinished = [i for i in accounts.copies_of if i not in accounts.fanned_out]
    if unfinished: failures.append(f"{len(unfinished)} topic sends reached devices with no fanned_out, e.g. {unfinished[:5]}")
    if rss.peak > arguments.max_rss_mb: failures.append(f"worker RSS peaked at {rss.peak:.0f} MB, over {arguments.max_rss_mb:.0f}")
    print(f"RESULT fuzz seed={arguments.seed} delivery={arguments.delivery} records={delivered_records} "
          f"send={sum(is_send[i] for i in index_of.values())} refused={sum(refused.values())} "
          f"rate={delivered_records / max(drained - started, 1e-9):.0f}/s statuses={dict(accounts.status_types)} "
          f"dead_letters={accounts.dead_letters} inbox={accounts.inbox_records} unaccounted={len(unaccounted)} "
          f"fanned_out={len(accounts.fanned_out)} copies={sum(accounts.copies_of.values())} "
          f"largest={dict(accounts.largest)} peak_rss_mb={rss.peak:.0f} ok={not failures}", flush=True)
    for failure in failures:
        log(f"FAIL: {failure}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
