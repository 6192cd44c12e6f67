"""`fcm-bridge gateway` driven by the unmodified Firebase Admin SDK, configured only through its
service-account file and the environment (HTTPS_PROXY and a trusted CA), each call followed
through the worker to the status and inbox topics with confluent-kafka."""
import os
import re
import time
import uuid

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

from gateway_stack import app_server, produce, read, statuses  # noqa: E402

BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
pytestmark = [
    pytest.mark.skipif(not BOOTSTRAP, reason="needs a broker: KAFKA_BOOTSTRAP_SERVERS (scripts/test.sh starts one)"),
    pytest.mark.filterwarnings("ignore:Message.token is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:MulticastMessage.tokens is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:subscribe_to_topic_legacy is deprecated:DeprecationWarning"),
]
MESSAGE_ID = re.compile(r"^projects/example/messages/(\d+:\d+:0)$")


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
    forged = firebase_admin.initialize_app(Forged(), options={"projectId": "example"}, name=uuid.uuid4().hex)
    with pytest.raises(exceptions.UnauthenticatedError):
        messaging.send(messaging.Message(token="device-forged"), app=forged)


def test_an_unknown_service_account_gets_no_token(stack, monkeypatch):
    stranger = app_server(stack, monkeypatch, account=stack.stranger)
    with pytest.raises(Exception, match="invalid_grant"):
        messaging.send(messaging.Message(token="device-stranger"), app=stranger)


def test_the_dashboard_alert_rules_and_docs_name_only_what_the_gateway_exports(stack, app):
    """deploy/'s gateway panels and rules, and the docs' gateway metrics, against a running gateway's /metrics (the Swift suite's
    DashboardMetricsTests checks the rest against a worker and a watcher)."""
    import json
    import urllib.request
    from pathlib import Path

    messaging.send(messaging.Message(token="device-metrics"), app=app)
    exported = {}
    for line in urllib.request.urlopen(f"{stack.metrics}/metrics", timeout=10).read().decode().splitlines():
        if line and not line.startswith("#"):
            name = re.split(r"[{ ]", line, maxsplit=1)[0]
            exported.setdefault(name, set()).update(re.findall(r'([a-z_]+)="', line))
    root = Path(__file__).resolve().parents[2]
    dashboard = json.loads((root / "deploy/grafana/fcm-bridge.json").read_text())
    expressions = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    expressions += re.findall(r"^\s*expr:\s*(.*)$", (root / "deploy/prometheus/fcm-bridge.rules.yaml").read_text(), re.M)
    gateway = [e for e in expressions if "fcm_bridge_gateway_" in e]
    assert len(gateway) >= 4, gateway
    for doc in ["README.md", "deploy/README.md"]:
        named = set(re.findall(r"fcm_bridge_gateway_[a-z0-9_]+", (root / doc).read_text()))
        assert named <= exported.keys(), f"{doc} names gateway metrics nobody exports: {named - exported.keys()}"
    for expression in gateway:
        names = set(re.findall(r"fcm_bridge_gateway_[a-z0-9_]+", expression))
        assert names <= exported.keys(), f"{expression} names metrics the gateway does not export"
        for metric, selector in re.findall(r"(fcm_bridge_gateway_[a-z0-9_]+)\{([^}]*)\}", expression):
            for label in re.findall(r"([a-z_]+)\s*(?:=~|!=|!~|=)", selector):
                assert label in exported[metric], f"{metric} has no label {label}: {expression}"
        labels = set().union({"le"}, *(exported[n] for n in names))
        for group in re.findall(r"by \(([^)]*)\)", expression):
            for label in (part.strip() for part in group.split(",")):
                assert label in labels, f"no metric of {expression} has a label {label}"


def test_a_registrations_topics_are_read_from_the_worker_that_holds_it(stack, app, client):
    device, topic = f"device-{uuid.uuid4().hex}", f"registered-{uuid.uuid4().hex[:8]}"
    assert messaging.subscribe_to_topic([device], topic, app=app).success_count == 1
    statuses(stack, lambda events: any(
        e["type"] == "subscribed" and e.get("token") == device and e.get("topic") == topic for e in events))
    registration = f"https://fcm.googleapis.com/v1/projects/example/registrations/{device}/topicSubscriptions"
    listed = client.get(registration)
    assert listed.status_code == 200, listed.text
    assert listed.json() == {"topicSubscriptions": [{"name": f"{registration.split('/v1/')[1]}/{topic}"}]}
    assert client.get(f"{registration}/{topic}").status_code == 200
    missing = client.get(f"{registration}/elsewhere")
    assert missing.status_code == 404 and missing.json()["error"]["status"] == "NOT_FOUND"
    info = client.get(f"https://iid.googleapis.com/iid/info/{device}?details=true", headers={"access_token_auth": "true"})
    assert info.json() == {"platform": "IOS", "rel": {"topics": {topic: {}}}}, info.text
