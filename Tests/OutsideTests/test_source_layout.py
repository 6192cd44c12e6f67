"""The architecture the source tree promises: librdkafka is reached from one folder only."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "Sources" / "Kafka" / "Native"


def test_only_the_native_folder_imports_librdkafka():
    importers = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "Sources").rglob("*.swift")
        if any(line.strip() == "import CRDKafka" for line in path.read_text(encoding="utf-8").splitlines())
    }
    outside = {path for path in importers if not path.startswith(NATIVE.relative_to(ROOT).as_posix() + "/")}
    assert importers, "no file imports CRDKafka: the check looks in the wrong place"
    assert outside == set(), f"librdkafka is called outside {NATIVE.relative_to(ROOT)}: {sorted(outside)}"
