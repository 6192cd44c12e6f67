"""An app server's side of fcm-bridge with confluent-kafka: send a message to one device, learn
its message_id from the delivery report, and wait for the bridge's status of that message.

    pip install confluent-kafka
    KAFKA_BOOTSTRAP_SERVERS=broker:9092 python3 app_server.py DEVICE_TOKEN
"""
import json
import os
import sys
import time
import uuid

from confluent_kafka import Consumer, Producer

BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092")
SEND_TOPIC = os.environ.get("SEND_TOPIC", "fcm.send")
STATUS_TOPIC = os.environ.get("STATUS_TOPIC", "fcm.status")

producer = Producer({
    "bootstrap.servers": BOOTSTRAP,
    # The Java client's partitioner for keyed records: a device's sends land on the partition
    # the bridge keeps its state in, in order. librdkafka's default (consistent_random) differs.
    "partitioner": "murmur2_random",
    # No duplicate or reordered records from the producer's own retries; idempotence needs
    # acks=all, named here as the Java client's settings name it.
    "enable.idempotence": True,
    "acks": "all",
})
statuses = Consumer({
    "bootstrap.servers": BOOTSTRAP,
    "group.id": os.environ.get("STATUS_GROUP", "app-server-statuses"),
    # Statuses are written in the bridge's transactions: read only committed ones.
    "isolation.level": "read_committed",
    "auto.offset.reset": "earliest",
})
statuses.subscribe([STATUS_TOPIC])

token = sys.argv[1] if len(sys.argv) > 1 else f"example-device-{uuid.uuid4().hex}"
request = {"message": {"token": token, "notification": {"title": "Hello", "body": "From the app server"}}}

message_ids = []


def delivered(error, record):
    if error is not None:
        sys.exit(f"the send was not written: {error}")
    # A send's message_id is its record's partition and offset, and the token's index in it.
    message_ids.append(f"{record.partition()}:{record.offset()}:0")


# Keyed by the device's token, so that its sends keep their order.
producer.produce(SEND_TOPIC, key=token, value=json.dumps(request), on_delivery=delivered)
if producer.flush(30) > 0 or not message_ids:
    sys.exit("the send was not acknowledged within 30 s")
message_id = message_ids[0]
print(f"sent {message_id} to {token}")

deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    record = statuses.poll(1.0)
    if record is None or record.error() is not None:
        continue
    status = json.loads(record.value())
    if status.get("message_id") == message_id:
        # queued (the device is offline), dispatched (written to its inbox), rejected, ...
        print(f"status of {message_id}: {status['type']}")
        break
else:
    sys.exit(f"no status of {message_id} within 60 s")
statuses.close()
