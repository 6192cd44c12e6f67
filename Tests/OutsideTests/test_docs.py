"""The docs and `fcm-bridge --help` agree: every option an operator's subcommand has is
documented in the README, the watch and gateway flag tables list exactly their options with
their defaults, and every `fcm-bridge SUBCOMMAND --flag` the docs write exists. Read from the
binary's own description of its arguments (ArgumentParser's --experimental-dump-help)."""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", "deploy/README.md", "CONTRIBUTING.md", "docs/PROTOCOL.md"]
OPERATORS = ["run", "validate-config", "topics", "watch", "gateway", "translate"]
COMMON = {"help", "version", "config", "log-level", "log-format"}


@pytest.fixture(scope="module")
def commands():
    dump = subprocess.run(
        [os.environ["FCM_BRIDGE_BINARY"], "--experimental-dump-help"], capture_output=True, text=True, check=True)
    described = json.loads(dump.stdout)["command"]["subcommands"]
    return {
        command["commandName"]: {
            argument["names"][-1]["name"]: argument.get("defaultValue")
            for argument in command.get("arguments", [])
            if argument["kind"] != "positional" and argument.get("names")
            and argument["names"][-1]["kind"] == "long"
        }
        for command in described
    }


def text(doc):
    return (ROOT / doc).read_text(encoding="utf-8")


def flag_table(command):
    """The README's `fcm-bridge COMMAND` flags table: flag -> default cell."""
    section = text("README.md").split(f"### `fcm-bridge {command}` flags\n", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `--([a-z-]+)[^`]*` \|([^|]*)\|", section, re.MULTILINE)
    return {flag: default.strip() for flag, default in rows}


@pytest.mark.parametrize("command", OPERATORS)
def test_every_option_is_documented(commands, command):
    readme = text("README.md")
    missing = [f"--{name}" for name in commands[command] if f"--{name}" not in readme and name not in {"help", "version"}]
    assert not missing, f"fcm-bridge {command} has options the README never names: {missing}"


@pytest.mark.parametrize("command", ["watch", "gateway"])
def test_the_flag_tables_are_the_options_with_their_defaults(commands, command):
    table = flag_table(command)
    options = {name: default for name, default in commands[command].items() if name not in COMMON}
    assert set(table) == set(options)
    for name, default in options.items():
        if default is not None:
            assert table[name] == f"`{default}`", f"--{name}: the README says {table[name]}, --help {default}"


def test_every_flag_the_docs_give_a_command_exists(commands):
    written = re.compile(r"fcm-bridge (" + "|".join(commands) + r")\b([^`\n|]*)")
    for doc in DOCS:
        for command, rest in written.findall(text(doc)):
            for flag in re.findall(r"(?<![\w-])--([a-z][a-z-]*)", rest):
                assert flag in commands[command] or flag in COMMON, f"{doc}: fcm-bridge {command} has no --{flag}"


def test_every_alert_rule_is_explained_in_the_readme():
    rules = set(re.findall(r"^\s*- alert: (\w+)$", text("deploy/prometheus/fcm-bridge.rules.yaml"), re.MULTILINE))
    explained = set(re.findall(r"^\| `(FcmBridge\w+)` \|", text("README.md"), re.MULTILINE))
    assert len(rules) >= 14 and rules == explained
