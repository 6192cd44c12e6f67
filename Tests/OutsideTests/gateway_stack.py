"""A worker and an `fcm-bridge gateway` on the test broker, with topics and a group of their
own; a CA, the gateway's certificate for Google's API hosts, and a service account whose public
key the gateway is given. The app server's side is configured as the README says: the
service-account file unchanged, HTTPS_PROXY naming the gateway's proxy, and the CA trusted."""
import datetime
import ipaddress
import json
import os
import re
import subprocess
import time
import uuid
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

API_HOSTS = ["fcm.googleapis.com", "iid.googleapis.com", "oauth2.googleapis.com"]


def _name(common):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _pem(key):
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def make_certificates(directory):
    """A CA and a server certificate it signed for Google's API hosts and loopback."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca = (
        x509.CertificateBuilder().subject_name(_name("fcm-bridge test CA")).issuer_name(_name("fcm-bridge test CA"))
        .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    names = [x509.DNSName(host) for host in API_HOSTS + ["localhost"]] + [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    server = (
        x509.CertificateBuilder().subject_name(_name("fcm-bridge gateway")).issuer_name(ca.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = {"ca": directory / "ca.pem", "certificate": directory / "gateway.pem", "key": directory / "gateway.key"}
    paths["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths["certificate"].write_bytes(server.public_bytes(serialization.Encoding.PEM))
    paths["key"].write_text(_pem(key))
    return paths


def make_service_account(directory, project, name="app"):
    """A service-account file as Google issues it (token_uri Google's), and its public key."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    email = f"{name}@{project}.iam.gserviceaccount.com"
    key_id = uuid.uuid4().hex
    account = {
        "type": "service_account", "project_id": project, "private_key_id": key_id, "private_key": _pem(key),
        "client_email": email, "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token",
    }
    path = directory / f"{name}.json"
    path.write_text(json.dumps(account))
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return path, {"client_email": email, "projects": [project], "keys": {key_id: public.decode()}}


class Process:
    """An fcm-bridge command, its output in a file."""

    def __init__(self, arguments, environment, log):
        self.log = log
        self.handle = open(log, "w")
        self.process = subprocess.Popen(arguments, env=environment, stdout=self.handle, stderr=subprocess.STDOUT)

    def wait_for(self, pattern, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.search(pattern, self.log.read_text())
            if match:
                return match
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} in {self.log}:\n{self.log.read_text()[-3000:]}")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.handle.close()


def bridge_environment(bootstrap, prefix):
    """The worker's and gateway's variables: the broker, and a group and topics of their own."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FCM_BRIDGE_")}
    environment.update({
        "FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS": bootstrap, "FCM_BRIDGE_KAFKA_GROUP_ID": prefix,
        "FCM_BRIDGE_APNS_BUNDLE_ID": "com.example.app", "FCM_BRIDGE_HTTP_LISTEN": "127.0.0.1:0",
        "FCM_BRIDGE_KAFKA_CONSUMER_PROPERTIES_FETCH_WAIT_MAX_MS": "10",
        "FCM_BRIDGE_KAFKA_CONSUMER_PROPERTIES_SESSION_TIMEOUT_MS": "6000",
        # Shared by every gateway of the stack, as by a fleet's: each accepts the others' tokens.
        "FCM_BRIDGE_GATEWAY_TOKEN_SECRET": uuid.uuid4().hex * 2,
    })
    for topic in ["send", "presence", "inbox", "status", "dead_letters", "subscriptions"]:
        environment[f"FCM_BRIDGE_TOPICS_{topic.upper()}"] = f"{prefix}.{topic}"
    return environment


def start_gateway(binary, environment, directory, certificates, accounts, name, *extra):
    """A gateway on free loopback ports; returns it (its `api` the HTTPS URL) and its proxy's URL."""
    accounts_file = directory / f"{name}-accounts.json"
    accounts_file.write_text(json.dumps({"accounts": accounts}))
    gateway = Process(
        [binary, "gateway", "--listen", "127.0.0.1:0", "--proxy-listen", "127.0.0.1:0",
         "--tls-certificate", str(certificates["certificate"]), "--tls-key", str(certificates["key"]),
         "--accounts", str(accounts_file), "--log-format", "json",
         *(extra if "--http-listen" in extra else (*extra, "--http-listen", "off"))],
        environment, directory / f"{name}.log")
    proxy = gateway.wait_for(r'"address":"127\.0\.0\.1:(\d+)"[^\n]*"message":"connect proxy listening"').group(1)
    api = gateway.wait_for(r'"address":"127\.0\.0\.1:(\d+)"[^\n]*"message":"gateway listening"').group(1)
    gateway.api = f"https://127.0.0.1:{api}"
    return gateway, f"http://127.0.0.1:{proxy}"


def app_server(stack, monkeypatch, account=None, proxy=None, **options):
    """An Admin SDK app reaching the gateway as the README configures an app server."""
    monkeypatch.setenv("HTTPS_PROXY", proxy or stack.proxy)
    for variable in ["NO_PROXY", "no_proxy", "https_proxy"]:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(stack.certificates["ca"]))
    monkeypatch.setenv("SSL_CERT_FILE", str(stack.certificates["ca"]))
    import firebase_admin
    from firebase_admin import credentials
    app = firebase_admin.initialize_app(
        credentials.Certificate(str(account or stack.account)), options=options, name=uuid.uuid4().hex)
    return app


def read(stack, topic, done, timeout=60, positions=False):
    """Records of `topic` (committed ones), as (key, JSON value), or with `positions` as
    (partition, offset, JSON value), until `done(records)`: every partition assigned from its
    start, with no group to join."""
    import confluent_kafka as kafka
    name = f"{stack.prefix}.{topic}"
    consumer = kafka.Consumer({
        "bootstrap.servers": stack.bootstrap, "group.id": "unused", "isolation.level": "read_committed",
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
                    value = json.loads(record.value())
                    records.append((record.partition(), record.offset(), value) if positions
                                   else (record.key().decode() if record.key() else None, value))
    finally:
        consumer.close()
    return records


def statuses(stack, wanted, timeout=60):
    """The status events until `wanted(events)` holds."""
    return [event for _, event in read(stack, "status", lambda r: wanted([e for _, e in r]), timeout)]


def produce(stack, topic, key, value):
    import confluent_kafka as kafka
    producer = kafka.Producer({"bootstrap.servers": stack.bootstrap, "enable.idempotence": True})
    producer.produce(f"{stack.prefix}.{topic}", key=key, value=json.dumps(value))
    assert producer.flush(30) == 0
