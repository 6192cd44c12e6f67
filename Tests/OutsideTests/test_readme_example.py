"""The README's Python integration example, as it stands in the README, run against a worker
on the test broker: it sends, learns its message_id from the delivery report, and reads the
bridge's status of that message with read_committed."""
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "app_server.py"


def readme_example():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- example: examples/app_server\.py -->\n```python\n(.*?)\n```", text, re.DOTALL)
    assert match, "the README has no example block for examples/app_server.py"
    return match.group(1) + "\n"


def test_the_readme_shows_the_example_as_it_is():
    assert readme_example() == EXAMPLE.read_text(encoding="utf-8")


def test_the_example_sends_and_reads_its_status(stack, tmp_path):
    pytest.importorskip("confluent_kafka", reason="confluent-kafka is not installed and PyPI cannot be reached")
    script = tmp_path / "app_server.py"
    script.write_text(readme_example(), encoding="utf-8")
    token = f"example-{uuid.uuid4().hex}"
    environment = {
        **os.environ, "KAFKA_BOOTSTRAP_SERVERS": stack.bootstrap, "SEND_TOPIC": f"{stack.prefix}.send",
        "STATUS_TOPIC": f"{stack.prefix}.status", "STATUS_GROUP": f"{stack.prefix}-example",
    }
    result = subprocess.run(
        [sys.executable, str(script), token], env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    sent = re.search(r"^sent (\d+:\d+:0) to " + token + "$", result.stdout, re.MULTILINE)
    assert sent, result.stdout
    # The device never connected: its message waits for it.
    assert f"status of {sent.group(1)}: queued" in result.stdout, result.stdout
