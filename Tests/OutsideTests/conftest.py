"""The gateway's stack, shared by the gateway's test modules: one worker and two gateways (one
with a rate limit of one request a second) on the test broker, started once per session."""
import os
import uuid

import pytest

from gateway_stack import Process, bridge_environment, make_certificates, make_service_account, start_gateway


class Stack:
    """The running processes and what an app server needs to reach them."""


@pytest.fixture(scope="session")
def stack(tmp_path_factory):
    directory = tmp_path_factory.mktemp("gateway")
    binary = os.environ["FCM_BRIDGE_BINARY"]
    stack = Stack()
    stack.prefix = f"gateway-{uuid.uuid4().hex[:8]}"
    stack.bootstrap = os.environ["KAFKA_BOOTSTRAP_SERVERS"]
    stack.environment = bridge_environment(stack.bootstrap, stack.prefix)
    stack.directory = directory
    stack.certificates = make_certificates(directory)
    stack.account, stack.account_entry = make_service_account(directory, "example")
    stack.stranger, _ = make_service_account(directory, "example", name="stranger")
    stack.worker = Process([binary, "run", "--log-format", "json"], stack.environment, directory / "worker.log")
    processes = [stack.worker]
    try:
        stack.worker.wait_for("restored device state", timeout=120)
        worker = stack.worker.wait_for(r'"address":"127\.0\.0\.1:(\d+)"[^\n]*"message":"http endpoints listening"').group(1)
        stack.gateway, stack.proxy = start_gateway(
            binary, stack.environment, directory, stack.certificates, [stack.account_entry], "gateway",
            "--max-body-bytes", "8192", "--http-listen", "127.0.0.1:0", "--workers", f"127.0.0.1:{worker}")
        stack.metrics = "http://127.0.0.1:" + stack.gateway.wait_for(
            r'"address":"127\.0\.0\.1:(\d+)"[^\n]*"message":"http endpoints listening"').group(1)
        processes.append(stack.gateway)
        stack.limited, stack.limited_proxy = start_gateway(
            binary, stack.environment, directory, stack.certificates, [stack.account_entry], "limited",
            "--rate-limit", "1")
        processes.append(stack.limited)
        yield stack
    finally:
        for process in processes:
            process.stop()


@pytest.fixture
def app(stack, monkeypatch):
    import firebase_admin
    from gateway_stack import app_server
    app = app_server(stack, monkeypatch)
    yield app
    firebase_admin.delete_app(app)


@pytest.fixture
def client(stack, monkeypatch):
    """A requests session through the gateway's proxy with an access token, as the SDK's."""
    import requests
    from google.auth.transport.requests import Request
    from google.oauth2 import service_account

    monkeypatch.setenv("HTTPS_PROXY", stack.proxy)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(stack.certificates["ca"]))
    credentials = service_account.Credentials.from_service_account_file(
        str(stack.account), scopes=["https://www.googleapis.com/auth/firebase.messaging"])
    credentials.refresh(Request())
    session = requests.Session()
    session.headers.update({"Authorization": f"Bearer {credentials.token}", "Content-Type": "application/json"})
    session.token = credentials.token
    yield session
    session.close()
