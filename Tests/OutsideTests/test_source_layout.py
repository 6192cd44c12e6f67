"""The architecture the source tree promises: librdkafka is reached from one folder only."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "Sources" / "Kafka" / "Native"
# Any import of the C module: with attributes (@preconcurrency, @_implementationOnly), an access
# level, or a kind (`import struct CRDKafka.x`).
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:\w+\s+)?import\s+(?:\w+\s+)?CRDKafka\b", re.MULTILINE)


def test_only_the_native_folder_imports_librdkafka():
    importers = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "Sources").rglob("*.swift")
        if IMPORT.search(path.read_text(encoding="utf-8"))
    }
    outside = {path for path in importers if not path.startswith(NATIVE.relative_to(ROOT).as_posix() + "/")}
    assert importers, "no file imports CRDKafka: the check looks in the wrong place"
    assert outside == set(), f"librdkafka is called outside {NATIVE.relative_to(ROOT)}: {sorted(outside)}"
