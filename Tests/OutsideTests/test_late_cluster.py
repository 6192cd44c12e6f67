"""A worker started before its cluster answers, as after a cluster outage or in a deployment whose
brokers come up last: it waits, alive and not ready, and starts once a broker answers, without a
restart. The cluster "comes up" when a forwarder starts listening on the address the worker was
given, passing connections on to the test broker. A broker that refuses the connection (here:
TLS with a certificate the worker does not trust) is not waited for."""
import os
import socket
import ssl
import threading
import urllib.error
import urllib.request
import uuid

import pytest

from gateway_stack import Process, bridge_environment, make_certificates

BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
pytestmark = pytest.mark.skipif(not BOOTSTRAP, reason="needs a broker: KAFKA_BOOTSTRAP_SERVERS")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def accept_each(listener, handle):
    """Calls `handle` with each connection `listener` accepts, until it is closed."""
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        handle(client)


def forward(listener, target):
    """Accepts connections on `listener` and passes each, both ways, to `target` (host, port)."""
    def pipe(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            sink.close()

    def connect(client):
        try:
            upstream = socket.create_connection(target)
        except OSError:
            client.close()
            return
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()

    accept_each(listener, connect)


def status(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_worker_started_before_its_cluster_waits_then_starts(tmp_path):
    port = free_port()
    environment = bridge_environment(f"127.0.0.1:{port}", f"late-{uuid.uuid4().hex[:8]}")
    worker = Process([os.environ["FCM_BRIDGE_BINARY"], "run"], environment, tmp_path / "worker.log")
    listener = socket.socket()
    try:
        address = worker.wait_for(r"address=(\S+) paths=.* http endpoints listening").group(1)
        worker.wait_for(r"cannot reach the Kafka cluster; trying again", timeout=60)
        # A second failed attempt: the worker stayed up past the first one.
        worker.wait_for(r"attempt=2 .*cannot reach the Kafka cluster", timeout=60)
        assert status(f"http://{address}/readyz") == 503
        assert status(f"http://{address}/healthz") == 200

        host, broker_port = BOOTSTRAP.split(",")[0].rsplit(":", 1)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen()
        threading.Thread(target=forward, args=(listener, (host, int(broker_port))), daemon=True).start()

        worker.wait_for(r"the Kafka cluster answers", timeout=90)
        worker.wait_for(r"restored device state", timeout=120)
        assert status(f"http://{address}/readyz") == 200
        assert worker.process.poll() is None, "the worker exited"
    finally:
        listener.close()
        worker.stop()
    assert worker.process.returncode == 0, (tmp_path / "worker.log").read_text()[-3000:]


def serve_tls(listener, certificates):
    """Answers every connection with a TLS handshake under `certificates`' server certificate."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates["certificate"], certificates["key"])

    def handshake(client):
        try:
            with context.wrap_socket(client, server_side=True) as connection:
                connection.recv(1)
        except (OSError, ssl.SSLError):
            pass

    accept_each(listener, handshake)


def test_a_broker_that_refuses_the_connection_stops_the_worker(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    threading.Thread(target=serve_tls, args=(listener, make_certificates(tmp_path)), daemon=True).start()
    address = "127.0.0.1:%d" % listener.getsockname()[1]
    environment = bridge_environment(address, f"refused-{uuid.uuid4().hex[:8]}")
    environment["FCM_BRIDGE_KAFKA_PROPERTIES_SECURITY_PROTOCOL"] = "SSL"
    worker = Process([os.environ["FCM_BRIDGE_BINARY"], "run"], environment, tmp_path / "worker.log")
    try:
        worker.process.wait(timeout=90)
    finally:
        listener.close()
        worker.stop()
    output = (tmp_path / "worker.log").read_text()
    assert worker.process.returncode == 1, output[-3000:]
    assert "cannot start: the Kafka cluster refuses the connection" in output, output[-3000:]
