"""Messages built by Firebase's Admin SDK for Python, exactly as it sends them to FCM's v1 API,
through the bridge's decoder and translator (`fcm-bridge translate`): what the device receives.

The SDK sends through its public API (`messaging.send`, `send_each_for_multicast`) with the HTTP
transport replaced by a recorder, so each body is the one the SDK would have POSTed. The cases are
generated from the tables below, one per parameter of each class the SDK has for an iOS message;
a parameter or an APNs class that a new SDK release adds, and these tables do not know, fails
`test_every_sdk_parameter_has_a_case` by name. The expectations are the contract's translation
table and the README's choices, written here, not read from the bridge."""
import inspect
import json
import os
import subprocess
import threading

import pytest

try:
    import firebase_admin
except ImportError:
    if not os.environ.get("FCM_BRIDGE_PYPI_UNREACHABLE"):
        raise
    pytest.skip("firebase-admin is not installed and PyPI cannot be reached", allow_module_level=True)
import requests
from firebase_admin import credentials, messaging
from google.auth.credentials import AnonymousCredentials

# Message.token and MulticastMessage.tokens are deprecated; the cases that use them do so on purpose.
pytestmark = [pytest.mark.filterwarnings("ignore:Message.token is deprecated:DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:MulticastMessage.tokens is deprecated:DeprecationWarning")]

BUNDLE_ID = "com.example.app"
MESSAGE_ID = "0:sdk:1"
SENT_AT = 1_700_000_000_000
FID = "cR_dm3kKT0yr3Ad_zbdBqF"


# --- The SDK, with its transport recorded ---------------------------------------------------

class _Offline(credentials.Base):
    """A credential that needs no network: the recorder answers every request."""

    def get_credential(self):
        return AnonymousCredentials()


class _Recorder:
    """Answers the SDK's HTTP requests as FCM does and keeps each JSON body it sent."""

    def __init__(self):
        self.bodies = []
        self._lock = threading.Lock()

    def send(self, request, **kwargs):
        with self._lock:
            self.bodies.append(json.loads(request.body))
        response = requests.Response()
        response.status_code = 200
        response._content = json.dumps({"name": "projects/fcm-bridge-test/messages/1"}).encode()
        response.headers["Content-Type"] = "application/json"
        response.request = request
        response.url = request.url
        return response


@pytest.fixture(scope="session")
def app():
    app = firebase_admin.initialize_app(_Offline(), {"projectId": "fcm-bridge-test"}, name="fcm-bridge-sdk-test")
    yield app
    firebase_admin.delete_app(app)


@pytest.fixture
def sdk(app, monkeypatch):
    """Sends through the SDK's public API; returns the bodies it would have POSTed to FCM."""
    recorder = _Recorder()
    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", recorder.send)

    class Sender:
        @staticmethod
        def send(message, dry_run=False):
            recorder.bodies.clear()
            messaging.send(message, dry_run=dry_run, app=app)
            assert len(recorder.bodies) == 1
            return recorder.bodies[0]

        @staticmethod
        def send_multicast(message):
            recorder.bodies.clear()
            response = messaging.send_each_for_multicast(message, app=app)
            assert response.success_count == len(recorder.bodies)
            return list(recorder.bodies)

    return Sender


# --- The bridge -----------------------------------------------------------------------------

def bridge():
    binary = os.environ.get("FCM_BRIDGE_BINARY")
    if not binary:
        pytest.fail("FCM_BRIDGE_BINARY must name a built fcm-bridge (scripts/test.sh sets it)")
    return binary


def translate(body):
    """What the bridge makes of a request: ("ok", [apns objects]) or ("rejected", reason, detail)."""
    result = subprocess.run(
        [bridge(), "translate", "--sent-at", str(SENT_AT), "--bundle-id", BUNDLE_ID, "--message-id", MESSAGE_ID],
        input=json.dumps(body).encode(), capture_output=True, timeout=60)
    if result.returncode == 1 and result.stderr.startswith(b"rejected: "):
        reason, _, detail = result.stderr.decode()[len("rejected: "):].strip().partition(": ")
        return ("rejected", reason, detail)
    assert result.returncode == 0, result.stderr.decode()
    return ("ok", [json.loads(line) for line in result.stdout.decode().splitlines()])


def delivered(body):
    """The one device's APNs object for an accepted request."""
    outcome = translate(body)
    assert outcome[0] == "ok", f"the bridge refused what the SDK built: {outcome[1:]} for {json.dumps(body)}"
    assert len(outcome[1]) == 1
    return outcome[1][0]


# --- What FCM delivers ----------------------------------------------------------------------

ALERT_PUSH = {"apns-push-type": "alert", "apns-priority": "10", "apns-topic": BUNDLE_ID}


class Case:
    """A message built with one SDK parameter set (beside a plain fid target), and what the
    device then receives: `aps`, the other payload members, and headers that must be present
    (None: absent)."""

    def __init__(self, parameter, build, aps, payload=None, headers=ALERT_PUSH, extra=None, also=()):
        self.parameter = parameter
        self.covers = [parameter, *also]
        self.build = build
        self.aps = aps
        self.payload = payload or {}
        self.headers = headers
        self.extra = extra or {}


def apns(aps=None, **config):
    """A message to FID whose apns config has `aps` (in a payload) and `config`."""
    payload = messaging.APNSPayload(aps=aps) if aps is not None else None
    return messaging.Message(fid=FID, apns=messaging.APNSConfig(payload=payload, **config))


def alert(**fields):
    return apns(messaging.Aps(alert=messaging.ApsAlert(**fields)))


BACKGROUND = {"apns-push-type": "background", "apns-priority": "5", "apns-topic": BUNDLE_ID}
DIRECT = {"apns-push-type": None, "apns-priority": "10", "apns-topic": BUNDLE_ID}

CASES = [
    # Message
    Case("Message.fid", lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="T")),
         aps={"alert": {"title": "T"}}),
    Case("Message.token", lambda: messaging.Message(token=FID, notification=messaging.Notification(title="T")),
         aps={"alert": {"title": "T"}}),
    Case("Message.data", lambda: messaging.Message(fid=FID, data={"k": "v", "score": "3:1"}),
         aps={}, payload={"k": "v", "score": "3:1"}, headers=DIRECT, extra={"channel": "direct"}),
    Case("Message.notification", lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="T", body="B")),
         aps={"alert": {"title": "T", "body": "B"}}),
    # Notification
    Case("Notification.title", lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="Título ✓")),
         aps={"alert": {"title": "Título ✓"}}),
    Case("Notification.body", lambda: messaging.Message(fid=FID, notification=messaging.Notification(body="本文 🙂")),
         aps={"alert": {"body": "本文 🙂"}}),
    Case("Notification.image", lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="T", image="https://i/1.png")),
         aps={"alert": {"title": "T"}, "mutable-content": 1}, payload={"fcm_options": {"image": "https://i/1.png"}}),
    # APNSConfig
    Case("APNSConfig.headers",
         lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="T"), apns=messaging.APNSConfig(headers={
             "apns-priority": "5", "apns-collapse-id": "scores", "apns-expiration": "1700003600", "apns-topic": "com.other",
             "x-custom": "1"})),
         aps={"alert": {"title": "T"}},
         headers={"apns-push-type": "alert", "apns-priority": "5", "apns-collapse-id": "scores",
                  "apns-expiration": "1700003600", "apns-topic": "com.other", "x-custom": "1"}),
    Case("APNSConfig.payload", lambda: apns(messaging.Aps(alert="plain")), aps={"alert": "plain"}),
    Case("APNSFCMOptions.image", also=["APNSConfig.fcm_options"], build=lambda: apns(messaging.Aps(alert="a"), fcm_options=messaging.APNSFCMOptions(image="https://i/2.png")),
         aps={"alert": "a", "mutable-content": 1}, payload={"fcm_options": {"image": "https://i/2.png"}}),
    Case("APNSConfig.live_activity_token",
         lambda: apns(messaging.Aps(custom_data={"event": "update", "timestamp": 1700000000, "content-state": {"score": "2-1"}}),
                      live_activity_token="la-token-1"),
         aps={"event": "update", "timestamp": 1700000000, "content-state": {"score": "2-1"}},
         headers={"apns-push-type": "liveactivity", "apns-priority": "10", "apns-topic": BUNDLE_ID + ".push-type.liveactivity"},
         extra={"live_activity_token": "la-token-1"}),
    # APNSPayload
    Case("APNSPayload.aps", lambda: apns(messaging.Aps(badge=1)), aps={"badge": 1}),
    Case("APNSPayload.kwargs",
         lambda: messaging.Message(fid=FID, apns=messaging.APNSConfig(payload=messaging.APNSPayload(
             aps=messaging.Aps(alert="a"), customKey="customValue", nested={"list": [1, "two", None], "ok": True}))),
         aps={"alert": "a"}, payload={"customKey": "customValue", "nested": {"list": [1, "two", None], "ok": True}}),
    # Aps
    Case("Aps.alert", lambda: apns(messaging.Aps(alert="Hello")), aps={"alert": "Hello"}),
    Case("Aps.badge", lambda: apns(messaging.Aps(badge=42)), aps={"badge": 42}),
    Case("Aps.sound", lambda: apns(messaging.Aps(sound="chime.aiff")), aps={"sound": "chime.aiff"}),
    Case("Aps.content_available", lambda: apns(messaging.Aps(content_available=True)),
         aps={"content-available": 1}, headers=BACKGROUND),
    Case("Aps.category", lambda: apns(messaging.Aps(alert="a", category="REPLY")), aps={"alert": "a", "category": "REPLY"}),
    Case("Aps.thread_id", lambda: apns(messaging.Aps(alert="a", thread_id="chat-7")), aps={"alert": "a", "thread-id": "chat-7"}),
    Case("Aps.mutable_content", lambda: apns(messaging.Aps(alert="a", mutable_content=True)), aps={"alert": "a", "mutable-content": 1}),
    Case("Aps.custom_data", lambda: apns(messaging.Aps(alert="a", custom_data={"interruption-level": "time-sensitive", "relevance-score": 0.5})),
         aps={"alert": "a", "interruption-level": "time-sensitive", "relevance-score": 0.5}),
    # CriticalSound
    Case("CriticalSound.name", lambda: apns(messaging.Aps(sound=messaging.CriticalSound("alarm.caf"))),
         aps={"sound": {"name": "alarm.caf"}}),
    Case("CriticalSound.critical", lambda: apns(messaging.Aps(sound=messaging.CriticalSound("alarm.caf", critical=True))),
         aps={"sound": {"name": "alarm.caf", "critical": 1}}),
    Case("CriticalSound.volume", lambda: apns(messaging.Aps(sound=messaging.CriticalSound("alarm.caf", critical=True, volume=0.75))),
         aps={"sound": {"name": "alarm.caf", "critical": 1, "volume": 0.75}}),
    # ApsAlert: each field under its APNs name
    Case("ApsAlert.title", lambda: alert(title="T"), aps={"alert": {"title": "T"}}),
    Case("ApsAlert.subtitle", lambda: alert(subtitle="S"), aps={"alert": {"subtitle": "S"}}),
    Case("ApsAlert.body", lambda: alert(body="B"), aps={"alert": {"body": "B"}}),
    Case("ApsAlert.loc_key", lambda: alert(loc_key="BODY_KEY"), aps={"alert": {"loc-key": "BODY_KEY"}}),
    Case("ApsAlert.loc_args", lambda: alert(loc_key="K", loc_args=["a", "ü"]), aps={"alert": {"loc-key": "K", "loc-args": ["a", "ü"]}}),
    Case("ApsAlert.title_loc_key", lambda: alert(title_loc_key="TITLE_KEY"), aps={"alert": {"title-loc-key": "TITLE_KEY"}}),
    Case("ApsAlert.title_loc_args", lambda: alert(title_loc_key="K", title_loc_args=["1"]),
         aps={"alert": {"title-loc-key": "K", "title-loc-args": ["1"]}}),
    Case("ApsAlert.action_loc_key", lambda: alert(body="B", action_loc_key="VIEW"), aps={"alert": {"body": "B", "action-loc-key": "VIEW"}}),
    Case("ApsAlert.launch_image", lambda: alert(body="B", launch_image="splash.png"), aps={"alert": {"body": "B", "launch-image": "splash.png"}}),
    Case("ApsAlert.custom_data", lambda: alert(body="B", custom_data={"subtitle-loc-key": "SUB", "subtitle-loc-args": ["x"]}),
         aps={"alert": {"body": "B", "subtitle-loc-key": "SUB", "subtitle-loc-args": ["x"]}}),
]

# Parameters FCM does not send to an iOS device: accepted, and the device receives exactly what
# it receives without them.
IGNORED = {
    "Message.android": lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="T"), android=messaging.AndroidConfig(
        collapse_key="c", priority="high", ttl=3600, restricted_package_name="com.example", data={"a": "b"},
        notification=messaging.AndroidNotification(
            title="t", body="b", icon="i", color="#112233", sound="s", tag="t", click_action="c", body_loc_key="k",
            body_loc_args=["a"], title_loc_key="k", title_loc_args=["a"], channel_id="ch", image="https://i/3.png", ticker="t",
            sticky=True, local_only=True, priority="high", vibrate_timings_millis=[100, 200], default_vibrate_timings=False,
            default_sound=False, light_settings=messaging.LightSettings("#AABBCC", 100, 200), default_light_settings=False,
            visibility="public", notification_count=2, proxy="allow"),
        fcm_options=messaging.AndroidFCMOptions(analytics_label="android"), direct_boot_ok=True)),
    "Message.webpush": lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="T"), webpush=messaging.WebpushConfig(
        headers={"TTL": "60"}, data={"a": "b"},
        notification=messaging.WebpushNotification(
            title="t", body="b", icon="i", actions=[messaging.WebpushNotificationAction("a", "A", "i")], badge="b",
            data={"x": 1}, direction="ltr", image="https://i/4.png", language="en", renotify=True, require_interaction=True,
            silent=False, tag="t", timestamp_millis=1, vibrate=[100], custom_data={"y": 2}),
        fcm_options=messaging.WebpushFCMOptions(link="https://example.com"))),
    "Message.fcm_options": lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="T"),
                                                     fcm_options=messaging.FCMOptions(analytics_label="campaign_1")),
    "FCMOptions.analytics_label": lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="T"),
                                                            fcm_options=messaging.FCMOptions(analytics_label="campaign_2")),
    "APNSFCMOptions.analytics_label": lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="T"), apns=messaging.APNSConfig(
        fcm_options=messaging.APNSFCMOptions(analytics_label="ios_campaign"))),
}
PLAIN = lambda: messaging.Message(fid=FID, notification=messaging.Notification(title="T"))  # noqa: E731

# What the SDK builds and the bridge must refuse, by reason.
REFUSED = {
    "Message.condition that every device in none of its topics satisfies": (
        lambda: messaging.Message(condition="!('a' in topics)", notification=messaging.Notification(title="T")),
        "invalid_argument"),
    "an APNs payload over 4096 bytes": (
        lambda: messaging.Message(fid=FID, data={"big": "x" * 5000}), "payload_too_large"),
    "a reserved data key (FCM refuses it too)": (
        lambda: messaging.Message(fid=FID, data={"google.c.a.e": "1"}), "invalid_data_key"),
}

# The classes an iOS message is built from, and the parameters of each that the tables above
# cover (a case, ignored, or refused). Targets and Android / Webpush internals are covered
# as a whole by their own cases.
# Every part a multicast can carry, given to each device's message by the SDK.
MULTICAST_PARTS = {
    "data": {"k": "v"}, "notification": messaging.Notification(title="T", body="B"),
    "android": messaging.AndroidConfig(priority="high"), "webpush": messaging.WebpushConfig(headers={"TTL": "60"}),
    "apns": messaging.APNSConfig(headers={"apns-collapse-id": "m"}, payload=messaging.APNSPayload(aps=messaging.Aps(badge=4))),
    "fcm_options": messaging.FCMOptions(analytics_label="multi"),
}
COVERED = {
    messaging.Message: {"data", "notification", "android", "webpush", "apns", "fcm_options", "token", "topic", "condition", "fid"},
    messaging.MulticastMessage: {"tokens", "fids", *MULTICAST_PARTS},
}
for _name in [name for case in CASES for name in case.covers] + list(IGNORED):
    _cls, _param = _name.split(".")
    COVERED.setdefault(getattr(messaging, _cls), set()).add(_param)


def test_every_sdk_parameter_has_a_case():
    """A parameter the SDK has and these tables do not know is an SDK release the bridge was not
    checked against: add its case (what does FCM deliver for it?)."""
    unknown = []
    for cls, known in COVERED.items():
        parameters = set(inspect.signature(cls.__init__).parameters) - {"self"}
        unknown += [f"{cls.__name__}.{p}" for p in sorted(parameters - known)]
    assert unknown == [], f"firebase-admin {firebase_admin.__version__} has parameters with no case here: {unknown}"


def test_every_apns_class_is_covered():
    known = {cls.__name__ for cls in COVERED}
    apns_classes = {name for name in dir(messaging) if name.startswith(("APNS", "Aps", "CriticalSound"))}
    assert apns_classes - known == set(), f"firebase-admin {firebase_admin.__version__} has APNs classes with no case here"


@pytest.mark.parametrize("case", CASES, ids=[case.parameter for case in CASES])
def test_what_the_device_receives(sdk, case):
    body = sdk.send(case.build())
    assert body["message"].get("fid", body["message"].get("token")) == FID
    received = delivered(body)
    assert received["payload"] == {"aps": case.aps, "gcm.message_id": MESSAGE_ID, **case.payload}
    for name, value in case.headers.items():
        assert received["headers"].get(name) == value, name
    for name, value in case.extra.items():
        assert received.get(name) == value, name
    unexpected = set(received) - {"headers", "payload"} - set(case.extra)
    assert not unexpected


def test_token_and_fid_reach_the_device_alike(sdk):
    built = lambda **target: messaging.Message(  # noqa: E731
        notification=messaging.Notification(title="T", body="B"), data={"k": "v"},
        apns=messaging.APNSConfig(headers={"apns-collapse-id": "c"}, payload=messaging.APNSPayload(aps=messaging.Aps(badge=2))),
        **target)
    by_fid, by_token = sdk.send(built(fid=FID)), sdk.send(built(token=FID))
    assert "token" not in by_fid["message"] and "fid" not in by_token["message"]
    assert delivered(by_fid) == delivered(by_token)


@pytest.mark.parametrize("parameter", list(IGNORED))
def test_accepted_and_not_sent_to_the_device(sdk, parameter):
    assert delivered(sdk.send(IGNORED[parameter]())) == delivered(sdk.send(PLAIN()))


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_by_name(sdk, name):
    build, reason = REFUSED[name]
    outcome = translate(sdk.send(build()))
    assert outcome[:2] == ("rejected", reason), outcome


def test_dry_run_is_sent_as_validate_only_and_translates_alike(sdk):
    body = sdk.send(PLAIN(), dry_run=True)
    assert body["validate_only"] is True
    assert delivered(body) == delivered(sdk.send(PLAIN()))


@pytest.mark.parametrize("target", ["fids", "tokens"])
def test_multicast_is_one_request_per_device_each_as_its_own_message(sdk, target):
    """Each device of a multicast receives what a message to it alone with the same parts gets."""
    devices = [f"{FID}-{n}" for n in range(3)]
    bodies = sdk.send_multicast(messaging.MulticastMessage(**{target: devices}, **MULTICAST_PARTS))
    field = target[:-1]
    assert sorted(body["message"][field] for body in bodies) == devices
    alone = delivered(sdk.send(messaging.Message(**{field: devices[0]}, **MULTICAST_PARTS)))
    assert alone["payload"]["aps"] == {"alert": {"title": "T", "body": "B"}, "badge": 4}
    for body in bodies:
        assert delivered(body) == alone


@pytest.mark.parametrize("target", [{"topic": "news"}, {"topic": "/topics/news"},
                                    {"condition": "'a' in topics && ('b' in topics || 'c' in topics)"}])
def test_topic_and_condition_sends_reach_a_device_as_a_message_to_it_would(sdk, target):
    """Each device of a topic or condition send receives what a message to it alone gets; with
    `--token`, under its own id: the send's, `/`, and 16 hex digits."""
    body = sdk.send(messaging.Message(**target, **MULTICAST_PARTS))
    assert "token" not in body["message"] and "fid" not in body["message"]
    assert delivered(body) == delivered(sdk.send(messaging.Message(fid=FID, **MULTICAST_PARTS)))
    result = subprocess.run([bridge(), "translate", "--token", FID, "--message-id", MESSAGE_ID, "--sent-at", str(SENT_AT)],
                            input=json.dumps(body).encode(), capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    copy_id = json.loads(result.stdout)["payload"]["gcm.message_id"]
    prefix, _, device = copy_id.partition("/")
    assert prefix == MESSAGE_ID and len(device) == 16 and all(c in "0123456789abcdef" for c in device)


def test_translate_token_option_replaces_an_fid_target(sdk):
    """`fcm-bridge translate --token` translates for another device, also a message that names an fid."""
    body = json.dumps(sdk.send(PLAIN())).encode()
    result = subprocess.run([bridge(), "translate", "--token", "other-device", "--sent-at", str(SENT_AT)], input=body,
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    assert json.loads(result.stdout)["payload"]["aps"] == {"alert": {"title": "T"}}


def test_everything_at_once(sdk):
    """Every APNs option the SDK has in one message, as a full app server would send it."""
    message = messaging.Message(
        fid=FID, data={"order": "1234"}, notification=messaging.Notification(title="N", body="nb", image="https://i/n.png"),
        fcm_options=messaging.FCMOptions(analytics_label="all"),
        apns=messaging.APNSConfig(
            headers={"apns-priority": "10", "apns-collapse-id": "all"},
            fcm_options=messaging.APNSFCMOptions(analytics_label="ios", image="https://i/a.png"),
            payload=messaging.APNSPayload(
                aps=messaging.Aps(
                    alert=messaging.ApsAlert(
                        title="T", subtitle="S", body="B", loc_key="LK", loc_args=["1"], title_loc_key="TK",
                        title_loc_args=["2"], action_loc_key="AK", launch_image="L.png", custom_data={"x-alert": "y"}),
                    badge=0, sound=messaging.CriticalSound("c.caf", critical=True, volume=1.0), content_available=True,
                    category="C", thread_id="th", mutable_content=True, custom_data={"x-aps": 1}),
                extra="payload")))
    received = delivered(sdk.send(message))
    assert received["payload"] == {
        "aps": {
            "alert": {"title": "T", "subtitle": "S", "body": "B", "loc-key": "LK", "loc-args": ["1"], "title-loc-key": "TK",
                      "title-loc-args": ["2"], "action-loc-key": "AK", "launch-image": "L.png", "x-alert": "y"},
            "badge": 0, "sound": {"name": "c.caf", "critical": 1, "volume": 1.0}, "content-available": 1, "category": "C",
            "thread-id": "th", "mutable-content": 1, "x-aps": 1},
        "gcm.message_id": MESSAGE_ID, "order": "1234", "extra": "payload", "fcm_options": {"image": "https://i/a.png"}}
    assert received["headers"]["apns-push-type"] == "alert"
    assert received["headers"]["apns-collapse-id"] == "all"
