#!/usr/bin/env python3
"""Chaos test of an fcm-bridge fleet, from outside: it knows the wire contract, not the code.

Starts workers (the `fcm-bridge run` binary, configured through FCM_BRIDGE_* variables), streams
send requests to a set of devices while presence events come and go, and meanwhile hurts the
fleet on a seeded timeline:

  kill      two workers; again and again one is killed with SIGKILL and started again
  members   one to three workers join and leave (SIGTERM) while the stream runs
  broker    the broker is stopped (SIGTERM) and started again on the same storage, twice

At the end every device connects, so every accepted message must reach the inbox. Then it reads
the inbox and status topics from their beginning (read_committed) and reports, per request
(each carries its own `chaos_id` data entry):
  lost        accepted requests with no inbox record, or none of the terminal statuses
  duplicated  requests with more than one inbox record, or message ids with more than one
              terminal status (allowed, with the same message id, in at_least_once mode, and
              wherever the broker shows aborted transactions to read_committed readers, as
              tansu does: it is probed first)
Exits 0 when nothing is lost (and, in exactly_once mode, nothing is duplicated), 1 otherwise.
Bounded in time: every wait has a deadline. Loopback only.
"""
import argparse
import json
import os
import random
import sys
import time
import uuid
from collections import Counter

from confluent_kafka import Producer
from confluent_kafka.admin import NewTopic

import outside
from outside import Broker, Fleet, create_topics, read_topic, worker_environment


def log(message):
    outside.log("chaos", message)


TERMINAL = {"dispatched", "collapsed", "expired"}


def fault_plan(scenario, rng, seconds):
    """(time, action, argument) steps over the stream's `seconds`, from the seed."""
    plan, t = [], 0.0
    if scenario == "kill":
        while True:
            t += rng.uniform(3, 6)
            if t >= seconds:
                return plan
            plan.append((t, "kill", None))
            plan.append((t + rng.uniform(0.5, 3), "restart", None))
    if scenario == "members":
        while True:
            t += rng.uniform(3, 6)
            if t >= seconds:
                return plan
            plan.append((t, rng.choice(["join", "leave"]), None))
    if scenario == "broker":
        for share in (0.3, 0.65):
            plan.append((seconds * share, "broker", rng.uniform(2, 5)))
        return plan
    raise ValueError(scenario)


def broker_hides_aborted(bootstrap, topic):
    """Whether read_committed readers skip aborted transactions here (Apache Kafka does; tansu
    does not, and there an aborted batch of a killed worker reads as a duplicate)."""
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": f"chaos-probe-{uuid.uuid4()}"})
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(topic, value=b"aborted")
    producer.flush(30)
    producer.abort_transaction(30)
    return not read_topic(bootstrap, topic, 1, time.monotonic() + 60)


def audit(bootstrap, topics, partitions, sent, deadline):
    """Reads the outputs and returns (lost, duplicated, details)."""
    inbox = read_topic(bootstrap, topics["inbox"], partitions, deadline)
    statuses = read_topic(bootstrap, topics["status"], partitions, deadline)
    delivered_ids, message_of = Counter(), {}
    for record in inbox:
        value = json.loads(record.value())
        if value.get("kind") != "message":
            continue
        chaos_id = value["apns"]["payload"].get("chaos_id")
        delivered_ids[chaos_id] += 1
        message_of[chaos_id] = value["message_id"]
    terminal, rejected = Counter(), 0
    for record in statuses:
        value = json.loads(record.value())
        if value["type"] in TERMINAL:
            terminal[value["message_id"]] += 1
        elif value["type"] == "deleted_messages":
            terminal.update(value.get("message_ids", []))
        elif value["type"] == "rejected":
            rejected += 1
    lost = [c for c in sent if delivered_ids[c] == 0 or terminal[message_of[c]] == 0]
    duplicated = [c for c in sent if delivered_ids[c] > 1 or (c in message_of and terminal[message_of[c]] > 1)]
    details = {"inbox_records": len(inbox), "status_events": len(statuses), "rejected": rejected}
    return lost, duplicated, details


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", choices=["kill", "members", "broker"], required=True)
    parser.add_argument("--delivery", choices=["exactly_once", "at_least_once"], default="exactly_once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--devices", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=30, help="how long the stream runs")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--drain-seconds", type=float, default=180, help="how long the fleet may take to finish after the stream")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--broker-name", default="chaos")
    parser.add_argument("--root", required=True)
    arguments = parser.parse_args()
    if arguments.messages > arguments.devices * 90:
        parser.error("at most 90 messages a device: an offline device holds 100 before its queue is discarded")

    rng = random.Random(arguments.seed)
    bootstrap = os.environ["KAFKA_BOOTSTRAP_SERVERS"]
    run = f"chaos-{arguments.scenario}-{arguments.seed}-{uuid.uuid4().hex[:6]}"
    topics = create_topics(bootstrap, run, arguments.partitions, extra=[NewTopic(f"{run}.probe", 1, 1)])
    hides_aborted = broker_hides_aborted(bootstrap, f"{run}.probe")

    environment = worker_environment(bootstrap, run, topics, arguments.partitions, arguments.delivery)
    fleet = Fleet(arguments.binary, environment, arguments.run_dir)
    broker = Broker(arguments.root, arguments.broker_name)
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5,
                         "message.timeout.ms": 120000})
    failures = []

    def delivered(error, message):
        if error is not None:
            failures.append(str(error))

    tokens = [f"{run}-device-{i}" for i in range(arguments.devices)]
    online = set(tokens[: arguments.devices // 2])

    def presence(token, event):
        producer.produce(topics["presence"], key=token, value=json.dumps({"token": token, "event": event}), on_delivery=delivered)

    try:
        for slot in ([0, 1] if arguments.scenario == "kill" else [0]):
            fleet.start(slot)
        for token in online:
            presence(token, "connect")
        plan = fault_plan(arguments.scenario, rng, arguments.seconds)
        log(f"run {run}: {arguments.messages} messages to {arguments.devices} devices over {arguments.seconds} s; "
            f"faults: {[(round(t, 1), action) for t, action, _ in plan]}")
        sent, started, next_slot, down = [], time.monotonic(), 2, []
        for index in range(arguments.messages):
            due = started + arguments.seconds * index / arguments.messages
            while plan and started + plan[0][0] <= max(due, time.monotonic()):
                _, action, argument = plan.pop(0)
                live = fleet.live()
                if action == "kill" and live:
                    slot = rng.choice(live)
                    fleet.kill(slot)
                    down.append(slot)
                elif action == "restart" and down:
                    fleet.start(down.pop(0))
                elif action == "join" and len(live) < 3:
                    fleet.start(next_slot)
                    next_slot += 1
                elif action == "leave" and len(live) > 1:
                    fleet.stop(rng.choice(live))
                elif action == "broker":
                    producer.flush(30)
                    broker.restart(argument)
            time.sleep(max(0.0, due - time.monotonic()))
            token = rng.choice(tokens)
            chaos_id = str(index)
            request = {"to": token, "notification": {"title": f"message {index}"}, "data": {"chaos_id": chaos_id}}
            producer.produce(topics["send"], key=token, value=json.dumps(request), on_delivery=delivered)
            sent.append(chaos_id)
            if rng.random() < 0.02:
                flip = rng.choice(tokens)
                presence(flip, "disconnect" if flip in online else "connect")
                online.symmetric_difference_update({flip})
            producer.poll(0)
        for slot in down:
            fleet.start(slot)
        if not fleet.live():
            fleet.start(next_slot)
        for token in tokens:
            presence(token, "connect")
        if producer.flush(120) > 0 or failures:
            log(f"the producer could not deliver every request: {failures[:3]}")
            return 1

        deadline = time.monotonic() + arguments.drain_seconds
        lost = sent
        while time.monotonic() < deadline:
            time.sleep(5)
            lost, duplicated, details = audit(bootstrap, topics, arguments.partitions, sent, deadline + 60)
            log(f"{len(sent) - len(lost)} of {len(sent)} accounted for; workers {fleet.live()}, exited {fleet.crashed()}")
            if not lost:
                break
        crashed = fleet.crashed()
        fleet.stop_all()
        lost, duplicated, details = audit(bootstrap, topics, arguments.partitions, sent, time.monotonic() + 120)
        # Duplicates count against exactly once only where the broker hides aborted transactions.
        allowed = arguments.delivery == "at_least_once" or not hides_aborted
        ok = not lost and (allowed or not duplicated)
        print(f"RESULT scenario={arguments.scenario} delivery={arguments.delivery} seed={arguments.seed} sent={len(sent)} "
              f"lost={len(lost)} duplicated={len(duplicated)} inbox={details['inbox_records']} statuses={details['status_events']} "
              f"rejected={details['rejected']} crashed={len(crashed)} broker_hides_aborted={hides_aborted} ok={ok}", flush=True)
        if lost:
            log(f"lost (first 10): {lost[:10]}")
        if duplicated:
            log(f"duplicated (first 10): {duplicated[:10]}")
        return 0 if ok else 1
    finally:
        fleet.stop_all()


if __name__ == "__main__":
    sys.exit(main())
