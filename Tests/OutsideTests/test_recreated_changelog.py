"""A worker's local stores against a changelog deleted and created again under its name, which has
since grown past the stores' checkpoints: its offsets cannot tell, its topic id does. The stores
must be rebuilt from the new changelog, saying so, and never replayed as state."""
import json
import os
import time
import uuid

import pytest

try:
    import confluent_kafka as kafka
    from confluent_kafka.admin import AdminClient, NewTopic
except ImportError:  # pragma: no cover - the scripts install it; PyPI may be unreachable
    pytest.skip("confluent-kafka is not installed and PyPI cannot be reached", allow_module_level=True)

from gateway_stack import Process, bridge_environment, read  # noqa: E402

BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
pytestmark = pytest.mark.skipif(not BOOTSTRAP, reason="needs a broker: KAFKA_BOOTSTRAP_SERVERS")


class Bridge:
    """What `read` needs of a worker's topics."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.bootstrap = BOOTSTRAP


def wait_for_topic(admin, name, present, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (name in admin.list_topics(timeout=10).topics) == present:
            return
        time.sleep(0.2)
    raise AssertionError(f"{name} {'never appeared' if present else 'never went'}")


def test_a_store_of_a_changelog_created_again_is_rebuilt(tmp_path):
    prefix = f"recreated-{uuid.uuid4().hex[:8]}"
    environment = bridge_environment(BOOTSTRAP, prefix)
    environment["FCM_BRIDGE_STATE_DIRECTORY"] = str(tmp_path / "state")
    binary = os.environ["FCM_BRIDGE_BINARY"]

    worker = Process([binary, "run"], environment, tmp_path / "first.log")
    try:
        worker.wait_for("restored device state", timeout=120)
        producer = kafka.Producer({"bootstrap.servers": BOOTSTRAP, "enable.idempotence": True,
                                   "partitioner": "murmur2_random"})
        tokens = [f"offline-{i}-{uuid.uuid4().hex}" for i in range(20)]
        for token in tokens:
            producer.produce(f"{prefix}.send", key=token,
                             value=json.dumps({"message": {"token": token, "data": {"k": "v"}}}))
        assert producer.flush(30) == 0
        queued = read(Bridge(prefix), "status",
                      lambda records: sum(v.get("type") == "queued" for _, v in records) >= 20)
        assert sum(v.get("type") == "queued" for _, v in queued) == 20
    finally:
        worker.stop()

    # The changelog is deleted and created again, and grows past every store's checkpoint with
    # records that change nothing (a device forgotten that no store holds).
    changelog = f"{prefix}.device-state-changelog"
    admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
    partitions = len(admin.list_topics(changelog, timeout=10).topics[changelog].partitions)
    for future in admin.delete_topics([changelog]).values():
        future.result(30)
    wait_for_topic(admin, changelog, present=False)
    config = {"cleanup.policy": "compact", "min.compaction.lag.ms": "3600000"}
    for future in admin.create_topics([NewTopic(changelog, partitions, 1, config=config)]).values():
        future.result(30)
    wait_for_topic(admin, changelog, present=True)
    for partition in range(partitions):
        for index in range(100):
            producer.produce(changelog, key=f"d nobody-{partition}-{index}", value=None, partition=partition)
    assert producer.flush(30) == 0

    worker = Process([binary, "run"], environment, tmp_path / "second.log")
    try:
        worker.wait_for("restored device state", timeout=120)
        log = (tmp_path / "second.log").read_text()
        assert "another incarnation of the changelog" in log, log[-3000:]
        # Rebuilt from the new changelog, which holds none of the devices: none has state.
        assert '"devices":"0"' in log or "devices=0" in log, log[-3000:]
    finally:
        worker.stop()
