"""Every test that spec/ names exists: each backticked ``tests/...py::name`` is a real test function."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC_DIR = ROOT / "spec"
REFERENCE = re.compile(r"`(tests/[^`\s]+?\.py)::([^`\s]+)`")


def spec_files() -> list[Path]:
    return sorted(SPEC_DIR.glob("*.md"))


def references(path: Path) -> list[tuple[str, list[str]]]:
    """Return (test file, [class..., function]) for each reference, parametrization stripped."""
    found = []
    for file_name, node in REFERENCE.findall(path.read_text(encoding="utf-8")):
        parts = re.sub(r"\[.*\]$", "", node).split("::")
        found.append((file_name, parts))
    return found


@cache
def definitions(file_name: str) -> frozenset[tuple[str, ...]]:
    """Return the module-level functions and (class, method) pairs of a test file."""
    tree = ast.parse((ROOT / file_name).read_text(encoding="utf-8"))
    names: set[tuple[str, ...]] = set()
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, functions):
            names.add((node.name,))
        elif isinstance(node, ast.ClassDef):
            names.update((node.name, item.name) for item in node.body if isinstance(item, functions))
    return frozenset(names)


def test_spec_directory_has_the_capability_files():
    names = {path.name for path in spec_files()}
    assert "README.md" in names
    assert len(names) >= 2


@pytest.mark.parametrize("path", spec_files(), ids=lambda path: path.name)
def test_every_referenced_test_exists(path):
    missing = []
    for file_name, parts in references(path):
        if not (ROOT / file_name).is_file():
            missing.append(f"{file_name} (no such file)")
        elif tuple(parts) not in definitions(file_name):
            missing.append(f"{file_name}::{'::'.join(parts)}")
    assert not missing, f"{path.name} names tests that do not exist: {missing}"


@pytest.mark.parametrize(
    "path", [path for path in spec_files() if path.name != "README.md"], ids=lambda path: path.name
)
def test_every_capability_file_references_a_test(path):
    assert references(path), f"{path.name} references no test"


def test_the_reference_pattern_reads_classes_and_parameters(tmp_path):
    sample = tmp_path / "sample.md"
    sample.write_text(
        "`tests/core/test_x.py::test_a[客厅-1]` and `tests/core/test_x.py::TestY::test_b` and `other`",
        encoding="utf-8",
    )
    assert references(sample) == [
        ("tests/core/test_x.py", ["test_a"]),
        ("tests/core/test_x.py", ["TestY", "test_b"]),
    ]


SEEDS = ROOT / "spec" / "seeds"


def test_every_seed_scenario_heading_is_in_the_spec():
    seeds = sorted(SEEDS.glob("00[14]_*.txt"))
    assert seeds, f"seed documents not found at {SEEDS}"
    spec_text = "\n".join(path.read_text(encoding="utf-8") for path in spec_files())
    missing = [
        f"seed {seed.name[:3]} · {title}"
        for seed in seeds
        for title in re.findall(r"^#### (场景：.+)$", seed.read_text(encoding="utf-8"), flags=re.MULTILINE)
        if f"seed {seed.name[:3]} · {title.strip()}" not in spec_text
    ]
    assert not missing
