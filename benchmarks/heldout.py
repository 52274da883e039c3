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

from custom_components.context_retrieval.core import build_vector_searcher
from custom_components.context_retrieval.demo_home import load_demo_home

from .data import REPO_ROOT
from .demo import describe_demo_failure, evaluate_demo_case, load_demo_cases, render_demo_table
from .quality import TOP_K, labels_of

HELDOUT_FILE = REPO_ROOT / "benchmarks" / "data" / "heldout_demo.jsonl"
TITLE = "Held-out utterances, demo home, offline parser (written without looking at the parser)"


def heldout_section() -> str:
    """Run the held-out utterances offline; return the table and the failure list as Markdown."""
    devices = load_demo_home()
    searcher = build_vector_searcher(devices)
    loaded = load_demo_cases(HELDOUT_FILE)
    cases = [replace(case, id=f"h-{number:03d}") for number, case in enumerate(loaded, start=1)]
    outcomes = [evaluate_demo_case(case, devices, searcher) for case in cases]
    failed = [o for o in outcomes if o.misses()]
    labels = labels_of(devices)
    lines = [
        f"## {TITLE}",
        "",
        f"{len(devices)}-device demo home, top_k={TOP_K}, {len(outcomes)} utterances, "
        "fresh state each, llm=None.",
        "",
        *render_demo_table(outcomes),
        "",
        f"### Failures, held-out ({len(failed)} of {len(outcomes)} cases)",
        "",
    ]
    lines.extend(describe_demo_failure(outcome, labels) for outcome in failed)
    if not failed:
        lines.append("none")
    return "\n".join(lines)
