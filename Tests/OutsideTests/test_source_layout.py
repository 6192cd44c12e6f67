"""The architecture the source tree promises: each C library is reached from one folder only."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def importers(module: str) -> set[str]:
    """Files under Sources/ that import `module`: with attributes (@preconcurrency,
    @_implementationOnly), an access level, or a kind (`import struct CRDKafka.x`)."""
    pattern = re.compile(rf"^\s*(?:@\w+\s+)*(?:\w+\s+)?import\s+(?:\w+\s+)?{module}\b", re.MULTILINE)
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "Sources").rglob("*.swift")
        if pattern.search(path.read_text(encoding="utf-8"))
    }


@pytest.mark.parametrize(
    ("module", "native"),
    [("CRDKafka", "Sources/Kafka/Native"), ("CRocksDB", "Sources/DeviceStore/Native")],
)
def test_only_the_native_folder_imports_the_c_library(module, native):
    found = importers(module)
    outside = {path for path in found if not path.startswith(native + "/")}
    assert found, f"no file imports {module}: the check looks in the wrong place"
    assert outside == set(), f"{module} is called outside {native}: {sorted(outside)}"
