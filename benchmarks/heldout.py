"""Offline-parser quality on held-out utterances for the bundled demo home.

The cases are ``benchmarks/data/heldout_demo.jsonl`` (numbered ``h-001``, ... in file
order) against ``load_demo_home()``. They were written from the demo home's devices and
command ids alone, without reading the offline parser or its tuning utterances, so they
estimate how the parser does on phrasings it was not fitted to. Each case runs through
``retrieve`` with ``llm=None``, a fresh ``ConversationState`` and one shared vector index,
and is scored like the demo-home section (see ``benchmarks.demo``).
"""

from __future__ import annotations

from dataclasses import replace

from .data import REPO_ROOT
from .demo import labelled_set_section, load_demo_cases

HELDOUT_FILE = REPO_ROOT / "benchmarks" / "data" / "heldout_demo.jsonl"
TITLE = "Held-out utterances, demo home, offline parser (written without looking at the parser)"


def heldout_section() -> str:
    """Run the held-out utterances offline; return the table and the failure list as Markdown."""
    loaded = load_demo_cases(HELDOUT_FILE)
    cases = [replace(case, id=f"h-{number:03d}") for number, case in enumerate(loaded, start=1)]
    return labelled_set_section(TITLE, "held-out", cases)
