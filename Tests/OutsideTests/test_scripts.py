"""The scripts the docs tell people to run, as the docs write them (`scripts/fuzz.sh outside`):
each exists, parses, and (unless the docs only `source` it) is committed executable and names an
interpreter this machine has."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", "CONTRIBUTING.md", "DEVELOPERS.md", "BENCHMARKS.md", "deploy/README.md", *(str(p.relative_to(ROOT)) for p in ROOT.glob("docs/*.md"))]
# A script path as a command or an argument, not inside another path; `source` before it when
# the docs say to source it rather than run it.
SCRIPT = re.compile(r"(source )?(?:\./|(?<![\w/.-]))(scripts/[\w.-]+\.(?:sh|py))\b")


def mentions():
    for doc in DOCS:
        path = ROOT / doc
        if path.exists():
            yield from SCRIPT.findall(path.read_text(encoding="utf-8"))


def named_scripts():
    return sorted({script for _, script in mentions()})


def run_scripts():
    """The scripts the docs run (not only source)."""
    return {script for sourced, script in mentions() if not sourced}


def test_the_docs_name_scripts():
    assert {"scripts/demo.sh", "scripts/test.sh", "scripts/fuzz.sh"} <= set(named_scripts())


@pytest.mark.parametrize("script", named_scripts())
def test_runs_as_written(script):
    path = ROOT / script
    assert path.is_file(), f"{script} is named in the docs but does not exist"
    check = ["bash", "-n", str(path)] if script.endswith(".sh") else ["python3", "-m", "py_compile", str(path)]
    result = subprocess.run(check, capture_output=True, text=True)
    assert result.returncode == 0, f"{script} does not parse: {result.stderr}"
    if script not in run_scripts():
        return
    mode = subprocess.run(["git", "ls-files", "--stage", script], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if mode:  # a clone has the committed mode; a work tree may differ until the next commit
        assert mode[0] == "100755", f"{script} is committed without its executable bit ({mode[0]})"
    assert path.stat().st_mode & 0o111, f"{script} is not executable: `{script}` would answer Permission denied"
    shebang = path.read_text(encoding="utf-8").splitlines()[0]
    assert shebang.startswith("#!"), f"{script} has no #! line"
    interpreter = shebang[2:].split()[-1] if shebang.startswith("#!/usr/bin/env") else shebang[2:].split()[0]
    assert shutil.which(interpreter), f"{script} names {interpreter}, which this machine does not have"
