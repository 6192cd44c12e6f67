"""`fcm-bridge gateway` driven by the unmodified Firebase Admin SDK, configured only through its
service-account file and the environment (HTTPS_PROXY and a trusted CA), each call followed
through the worker to the status and inbox topics with confluent-kafka."""
import json
import os
import re
import time
import uuid
from pathlib import Path

import pytest

try:
    import confluent_kafka as kafka
    import firebase_admin
except ImportError:
    if not os.environ.get("FCM_BRIDGE_PYPI_UNREACHABLE"):
        raise
    pytest.skip("firebase-admin or confluent-kafka is not installed and PyPI cannot be reached", allow_module_level=True)
from firebase_admin import credentials, exceptions, messaging  # noqa: E402
from google.auth import credentials as google_credentials  # noqa: E402

from gateway_stack import (  # noqa: E402
    Process, bridge_environment, make_certificates, make_service_account, start_gateway)

BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
BINARY = os.environ.get("FCM_BRIDGE_BINARY")
pytestmark = [
    pytest.mark.skipif(not BOOTSTRAP, reason="needs a broker: KAFKA_BOOTSTRAP_SERVERS (scripts/test.sh starts one)"),
    pytest.mark.filterwarnings("ignore:Message.token is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:MulticastMessage.tokens is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:subscribe_to_topic_legacy is deprecated:DeprecationWarning"),
]
PROJECT = "example"
MESSAGE_ID = re.compile(r"^projects/example/messages/(\d+:\d+:0)$")


class Stack:
    pass


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    directory = tmp_path_factory.mktemp("gateway")
    stack = Stack()
    stack.prefix = f"gateway-{uuid.uuid4().hex[:8]}"
    stack.environment = bridge_environment(BOOTSTRAP, stack.prefix)
    stack.certificates = make_certificates(directory)
    stack.account, account = make_service_account(directory, PROJECT)
    stack.stranger, _ = make_service_account(directory, PROJECT, name="stranger")
    stack.worker = Process([BINARY, "run", "--log-format", "json"], stack.environment, directory / "worker.log")
    processes = [stack.worker]
    try:
        stack.worker.wait_for("restored device state", timeout=120)
        stack.gateway, stack.proxy = start_gateway(
            BINARY, stack.environment, directory, stack.certificates, [account], "gateway")
        processes.append(stack.gateway)
        stack.limited, stack.limited_proxy = start_gateway(
            BINARY, stack.environment, directory, stack.certificates, [account], "limited", "--rate-limit", "1")
        processes.append(stack.limited)
        yield stack
    finally:
        for process in processes:
            process.stop()


def app_server(stack, monkeypatch, account=None, proxy=None, **options):
    """An Admin SDK app reaching the gateway as the README configures an app server."""
    monkeypatch.setenv("HTTPS_PROXY", proxy or stack.proxy)
    for variable in ["NO_PROXY", "no_proxy", "https_proxy"]:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(stack.certificates["ca"]))
    monkeypatch.setenv("SSL_CERT_FILE", str(stack.certificates["ca"]))
    app = firebase_admin.initialize_app(
        credentials.Certificate(str(account or stack.account)), options=options, name=uuid.uuid4().hex)
    return app


@pytest.fixture
def app(stack, monkeypatch):
    app = app_server(stack, monkeypatch)
    yield app
    firebase_admin.delete_app(app)


def read(stack, topic, done, timeout=60):
    """Records of `topic` (committed ones), as (key, JSON value), until `done(records)`: every
    partition assigned from its start, with no group to join."""
    name = f"{stack.prefix}.{topic}"
    consumer = kafka.Consumer({
        "bootstrap.servers": BOOTSTRAP, "group.id": "unused", "isolation.level": "read_committed",
        "enable.auto.commit": False, "fetch.wait.max.ms": 10,
    })
    partitions = consumer.list_topics(name, timeout=10).topics[name].partitions
    consumer.assign([kafka.TopicPartition(name, p, kafka.OFFSET_BEGINNING) for p in partitions])
    records = []
    deadline = time.monotonic() + timeout
    try:
        while not done(records) and time.monotonic() < deadline:
            for record in consumer.consume(500, timeout=0.1):
                if record.error() is None:
                    records.append((record.key().decode() if record.key() else None, json.loads(record.value())))
    finally:
        consumer.close()
    return records


def statuses(stack, wanted, timeout=60):
    """The status events until `wanted(events)` holds."""
    return [event for _, event in read(stack, "status", lambda r: wanted([e for _, e in r]), timeout)]


def produce(stack, topic, key, value):
    producer = kafka.Producer({"bootstrap.servers": BOOTSTRAP, "enable.idempotence": True})
    producer.produce(f"{stack.prefix}.{topic}", key=key, value=json.dumps(value))
    assert producer.flush(30) == 0


def message_id(name):
    match = MESSAGE_ID.match(name)
    assert match, name
    return match.group(1)


def test_a_send_to_an_online_device_reaches_its_inbox(stack, app):
    device = f"device-{uuid.uuid4().hex}"
    produce(stack, "presence", device, {"token": device, "event": "connect"})
    name = messaging.send(
        messaging.Message(fid=device, notification=messaging.Notification(title="Hello", body="there")), app=app)
    sent = message_id(name)
    inbox = read(stack, "inbox", lambda records: any(v.get("message_id") == sent for _, v in records))
    record = next(v for _, v in inbox if v.get("message_id") == sent)
    assert record["token"] == device
    assert record["apns"]["payload"]["aps"]["alert"] == {"title": "Hello", "body": "there"}
    events = statuses(stack, lambda events: any(e.get("message_id") == sent and e["type"] == "dispatched" for e in events))
    assert any(e.get("message_id") == sent and e["type"] == "dispatched" for e in events)


def test_a_dry_run_is_answered_and_not_sent(stack, app):
    marker = uuid.uuid4().hex
    name = messaging.send(messaging.Message(token="device-dry", data={"marker": marker}), dry_run=True, app=app)
    assert name == "projects/example/messages/fake_message_id"
    # A send after it, to read the send topic up to: the dry run is not before it.
    last = message_id(messaging.send(messaging.Message(token="device-dry", data={"after": marker}), app=app))
    sends = read(stack, "send", lambda records: any(v["message"].get("data", {}).get("after") == marker for _, v in records))
    assert not any(v.get("message", {}).get("data", {}).get("marker") == marker for _, v in sends)
    assert last


def test_topics_and_conditions_through_the_v1_and_legacy_apis(stack, app):
    topic = f"news-{uuid.uuid4().hex[:8]}"
    devices = [f"device-{uuid.uuid4().hex}" for _ in range(3)]
    response = messaging.subscribe_to_topic(devices[:2], topic, app=app)
    assert (response.success_count, response.failure_count) == (2, 0)
    legacy = messaging.subscribe_to_topic_legacy(devices[2:], topic, app=app)
    assert (legacy.success_count, legacy.failure_count) == (1, 0)
    subscribed = lambda events: {e["token"] for e in events if e["type"] == "subscribed" and e.get("topic") == topic}
    statuses(stack, lambda events: subscribed(events) >= set(devices))

    to_topic = message_id(messaging.send(messaging.Message(topic=topic, data={"k": "v"}), app=app))
    condition = f"'{topic}' in topics || 'elsewhere' in topics"
    to_condition = message_id(messaging.send(messaging.Message(condition=condition, data={"k": "v"}), app=app))
    fanned = lambda events: {e["message_id"]: e for e in events if e["type"] == "fanned_out"}
    events = statuses(stack, lambda events: {to_topic, to_condition} <= set(fanned(events)))
    assert fanned(events)[to_topic]["count"] == 3
    assert fanned(events)[to_condition]["count"] == 3

    gone = messaging.unsubscribe_from_topic(devices[0], topic, app=app)
    assert gone.success_count == 1
    statuses(stack, lambda events: any(
        e["type"] == "unsubscribed" and e.get("token") == devices[0] and e.get("topic") == topic for e in events))


def test_send_each_of_500_gets_500_ids_each_with_its_status(stack, app):
    devices = [f"device-{uuid.uuid4().hex}" for _ in range(500)]
    started = time.monotonic()
    response = messaging.send_each([messaging.Message(token=d, data={"n": str(i)}) for i, d in enumerate(devices)], app=app)
    elapsed = time.monotonic() - started
    assert response.success_count == 500, [r.exception for r in response.responses if not r.success][:3]
    ids = {message_id("projects/example/messages/" + r.message_id.rsplit("/", 1)[1]) for r in response.responses}
    assert len(ids) == 500
    events = statuses(stack, lambda events: ids <= {e.get("message_id") for e in events if e["type"] == "queued"})
    assert ids <= {e.get("message_id") for e in events if e["type"] == "queued"}
    print(f"send_each of 500 answered in {elapsed:.2f} s")


def test_send_each_for_multicast_of_500(stack, app):
    tokens = [f"device-{uuid.uuid4().hex}" for _ in range(500)]
    response = messaging.send_each_for_multicast(messaging.MulticastMessage(tokens=tokens, data={"k": "v"}), app=app)
    assert response.success_count == 500


def test_each_error_class_the_sdk_maps(stack, app, monkeypatch):
    too_big = messaging.Message(token="device-big", data={"blob": "x" * 5000})
    with pytest.raises(exceptions.InvalidArgumentError, match="payload"):
        messaging.send(too_big, app=app)
    reserved = messaging.Message(token="device-reserved", data={"from": "me"})
    with pytest.raises(exceptions.InvalidArgumentError, match="from"):
        messaging.send(reserved, app=app)

    other = app_server(stack, monkeypatch, projectId="another-project")
    with pytest.raises(exceptions.PermissionDeniedError):
        messaging.send(messaging.Message(token="device-other"), app=other)

    # One request a second per account; the SDK retries a 429 four times after its Retry-After.
    limited = app_server(stack, monkeypatch, proxy=stack.limited_proxy)
    burst = messaging.send_each([messaging.Message(token=f"device-limited-{n}") for n in range(20)], app=limited)
    refused = [r.exception for r in burst.responses if not r.success]
    assert refused and all(isinstance(e, messaging.QuotaExceededError) for e in refused), refused[:3]


def test_a_token_the_gateway_did_not_issue_is_unauthenticated(stack, app, monkeypatch):
    class ForgedToken(google_credentials.Credentials):
        def refresh(self, request):
            self.token = "forged"

    class Forged(credentials.Base):
        def get_credential(self):
            return ForgedToken()

    monkeypatch.setenv("HTTPS_PROXY", stack.proxy)
    forged = firebase_admin.initialize_app(Forged(), options={"projectId": PROJECT}, name=uuid.uuid4().hex)
    with pytest.raises(exceptions.UnauthenticatedError):
        messaging.send(messaging.Message(token="device-forged"), app=forged)


def test_an_unknown_service_account_gets_no_token(stack, monkeypatch):
    stranger = app_server(stack, monkeypatch, account=stack.stranger)
    with pytest.raises(Exception, match="invalid_grant"):
        messaging.send(messaging.Message(token="device-stranger"), app=stranger)
