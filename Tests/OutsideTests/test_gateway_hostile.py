"""`fcm-bridge gateway` under hostile and unlucky clients: bodies at and over the limit, malformed
JSON, ten thousand idle connections and a slow client beside real requests, and a gateway killed
with SIGKILL under load, whose every `200` must name its record on the send topic."""
import json
import os
import signal
import socket
import ssl
import threading
import time
import uuid

import pytest

try:
    import confluent_kafka  # noqa: F401 (the stack reads topics with it)
    import requests
except ImportError:
    if not os.environ.get("FCM_BRIDGE_PYPI_UNREACHABLE"):
        raise
    pytest.skip("firebase-admin or confluent-kafka is not installed and PyPI cannot be reached", allow_module_level=True)

from gateway_stack import read, start_gateway  # noqa: E402

pytestmark = pytest.mark.skipif(
    not os.environ.get("KAFKA_BOOTSTRAP_SERVERS"), reason="needs a broker: KAFKA_BOOTSTRAP_SERVERS (scripts/test.sh starts one)")
SEND = "https://fcm.googleapis.com/v1/projects/example/messages:send"


def google_status(response):
    return response.json()["error"]["status"]


def test_a_body_at_the_limit_is_read_and_one_byte_more_is_refused(client):
    body = json.dumps({"message": {"token": "device-limit", "data": {"pad": ""}}})
    at_limit = body.replace('"pad": ""', '"pad": "' + "x" * (8192 - len(body)) + '"')
    assert len(at_limit) == 8192
    read = client.post(SEND, data=at_limit)
    # Read whole: refused for what it says (its payload is over APNs' 4 KB), not for its size.
    assert read.status_code == 400 and "payload" in read.json()["error"]["message"], read.text
    over = client.post(SEND, data=at_limit + " ")
    assert over.status_code == 413, over.text
    assert google_status(over) == "INVALID_ARGUMENT"


@pytest.mark.parametrize("body", [b'{"message": ', b"[]", b'{"message": {"token": 5}}', b"\xff\xfe", b""])
def test_malformed_requests_are_invalid_arguments(client, body):
    response = client.post(SEND, data=body)
    assert response.status_code == 400, response.text
    assert google_status(response) == "INVALID_ARGUMENT"
    assert response.json()["error"]["details"][0]["errorCode"] == "INVALID_ARGUMENT"


def test_ten_thousand_idle_connections_and_a_slow_client_leave_it_serving(stack, client):
    port = int(stack.gateway.api.rsplit(":", 1)[1])
    idle = []
    try:
        started = time.monotonic()
        for _ in range(10_000):
            idle.append(socket.create_connection(("127.0.0.1", port)))
        print(f"10,000 connections open in {time.monotonic() - started:.1f} s")
        context = ssl.create_default_context(cafile=str(stack.certificates["ca"]))
        slow = context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="fcm.googleapis.com")
        slow.sendall(b"POST /v1/projects/example/messages:send HTTP/1.1\r\nHost: fcm.googleapis.com\r\n")
        answers = []
        started = time.monotonic()
        for n in range(20):
            slow.sendall(b"X-Slow: %d\r\n" % n)
            answers.append(client.post(SEND, json={"message": {"token": f"device-busy-{n}"}}).status_code)
        print(f"20 sends beside them in {time.monotonic() - started:.1f} s")
        assert answers == [200] * 20
        slow.close()
    finally:
        for connection in idle:
            connection.close()


def test_the_proxy_tunnels_googles_api_hosts_only(stack, client):
    address = stack.proxy.removeprefix("http://").split(":")
    proxy = (address[0], int(address[1]))
    refused = [
        (b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", b" 403 "),
        (b"CONNECT fcm.googleapis.com:80 HTTP/1.1\r\nHost: fcm.googleapis.com:80\r\n\r\n", b" 403 "),
        (b"GET http://fcm.googleapis.com/ HTTP/1.1\r\nHost: fcm.googleapis.com\r\n\r\n", b" 405 "),
        (b"\x16\x03\x01\x00\x05hello\r\n\r\n", b" 400 "),
    ]
    for request, answer in refused:
        with socket.create_connection(proxy, timeout=10) as connection:
            connection.sendall(request)
            received = connection.recv(200)
            # Not HTTP at all: answered 400 by the decoder, or the connection is closed.
            assert answer in received or (answer == b" 400 " and received == b""), (request, received)
    # Bytes right behind the CONNECT, before its answer, go through the tunnel (here to a TLS
    # listener that closes on them), not to the proxy's HTTP decoder.
    with socket.create_connection(proxy, timeout=10) as connection:
        connection.sendall(b"CONNECT fcm.googleapis.com:443 HTTP/1.1\r\nHost: fcm.googleapis.com:443\r\n\r\n"
                           + b"GET / HTTP/1.1\r\n\r\n")
        established = b"HTTP/1.1 200 Connection Established\r\n\r\n"
        answer = connection.recv(200)
        # Nothing after the head but the tunnel's bytes: a 2xx to CONNECT has no body.
        assert answer.startswith(established), answer
        # The TLS listener read them: it answers with an alert (0x15) or closes, which it does
        # only on bytes that reached it.
        rest = answer[len(established):] or connection.recv(200)
        assert rest == b"" or rest[:1] == b"\x15", rest
    assert client.post(SEND, json={"message": {"token": "device-after-proxy"}}).status_code == 200


def test_connections_idle_before_or_after_their_handshake_are_closed(stack):
    gateway, _ = start_gateway(
        os.environ["FCM_BRIDGE_BINARY"], stack.environment, stack.directory, stack.certificates,
        [stack.account_entry], f"idle-{uuid.uuid4().hex[:6]}", "--idle-timeout", "2")
    try:
        port = int(gateway.api.rsplit(":", 1)[1])
        silent = socket.create_connection(("127.0.0.1", port), timeout=20)
        context = ssl.create_default_context(cafile=str(stack.certificates["ca"]))
        greeted = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=20),
                                      server_hostname="fcm.googleapis.com")
        started = time.monotonic()
        assert silent.recv(100) == b"", "a connection that never began its handshake stayed open"
        try:
            assert greeted.recv(100) == b""
        except (ssl.SSLError, ConnectionResetError):
            pass  # closed: with or without TLS's close_notify
        assert time.monotonic() - started < 15
    finally:
        gateway.stop()


def test_a_gateway_killed_under_load_answered_200_only_for_what_it_wrote(stack, client):
    binary = os.environ["FCM_BRIDGE_BINARY"]
    gateway, _ = start_gateway(
        binary, stack.environment, stack.directory, stack.certificates, [stack.account_entry], f"killed-{uuid.uuid4().hex[:6]}",
        "--rate-limit", "0")
    answers, failures, stop = [], [], threading.Event()
    run = uuid.uuid4().hex

    def sender(thread):
        session = requests.Session()
        session.trust_env = False  # straight to the gateway's API, not through the proxy
        session.headers.update({"Authorization": f"Bearer {client.token}"})
        for n in range(1_000_000):
            if stop.is_set():
                return
            marker = f"{run}-{thread}-{n}"
            try:
                response = session.post(
                    f"{gateway.api}/v1/projects/example/messages:send", verify=str(stack.certificates["ca"]),
                    json={"message": {"token": f"device-kill-{thread}", "data": {"marker": marker}}}, timeout=10)
            except requests.RequestException:
                failures.append(marker)
                continue
            if response.status_code == 200:
                answers.append((marker, response.json()["name"].rsplit("/", 1)[1]))

    threads = [threading.Thread(target=sender, args=(t,)) for t in range(16)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(2)
        os.kill(gateway.process.pid, signal.SIGKILL)
        time.sleep(0.5)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        gateway.stop()
    assert len(answers) > 100, f"only {len(answers)} answers before the kill"
    assert failures, "the kill cut no request short: it came too late to test anything"
    ids = [message_id for _, message_id in answers]
    assert len(set(ids)) == len(ids), "two requests were answered with one record"
    wanted = {tuple(map(int, i.split(":")[:2])) for i in ids}
    records = read(stack, "send", lambda r: wanted <= {(p, o) for p, o, _ in r}, positions=True)
    written = {(partition, offset): value for partition, offset, value in records}
    for marker, message_id in answers:
        partition, offset = map(int, message_id.split(":")[:2])
        value = written.get((partition, offset))
        assert value is not None, f"{message_id} was answered 200 and is not on the send topic"
        assert value["message"]["data"]["marker"] == marker, f"{message_id} holds another request"


def test_http2_and_keep_alive_are_served(stack, client):
    """curl (built with nghttp2) negotiates HTTP/2 by ALPN; requests' HTTP/1.1 connection is kept
    alive across requests."""
    import shutil
    import subprocess
    curl = shutil.which("curl")
    assert curl, "curl is needed to speak HTTP/2"
    body = json.dumps({"message": {"token": "device-http2"}})
    answer = subprocess.run(
        [curl, "--http2", "--silent", "--show-error", "--cacert", str(stack.certificates["ca"]),
         "--write-out", "\n%{http_version} %{http_code}", "--header", f"Authorization: Bearer {client.token}",
         "--header", "Content-Type: application/json", "--data", body,
         f"{stack.gateway.api}/v1/projects/example/messages:send"],
        capture_output=True, text=True, timeout=30, env={k: v for k, v in os.environ.items() if "proxy" not in k.lower()})
    assert answer.stdout.rsplit("\n", 1)[-1] == "2 200", answer.stdout + answer.stderr
    assert json.loads(answer.stdout.rsplit("\n", 1)[0])["name"].startswith("projects/example/messages/")
    session = requests.Session()
    session.trust_env = False
    session.headers.update({"Authorization": f"Bearer {client.token}"})
    ports = set()
    for _ in range(5):
        response = session.post(f"{stack.gateway.api}/v1/projects/example/messages:send",
                                verify=str(stack.certificates["ca"]), json={"message": {"token": "device-alive"}},
                                stream=True)
        ports.add(response.raw.connection.sock.getsockname()[1])
        assert response.status_code == 200
        response.content
    assert len(ports) == 1, f"five requests used {len(ports)} connections"
