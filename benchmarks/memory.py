"""Peak memory of one synthetic home; run in a fresh interpreter by ``benchmarks.speed``.

``python -m benchmarks.memory N [--trace]`` builds an ``N``-device home, its vector
index, runs the 50 gold-parse utterances and prints one JSON line: max RSS after the
home was built and at the end (``resource.getrusage``), and with ``--trace`` the
tracemalloc peak of index build + queries (tracing inflates RSS, hence two runs).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tracemalloc

from custom_components.context_retrieval.core import ConversationState, build_vector_searcher, retrieve

from .data import GoldLLM, build_home, load_dataset
from .quality import TOP_K

MIB = 1024 * 1024


def maxrss_mb() -> float:
    """Return this process's max resident set size in MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / MIB if sys.platform == "darwin" else peak / 1024


def measure(size: int, *, trace: bool) -> dict[str, float]:
    """Build the home and index, run the queries and return the memory figures."""
    dataset = load_dataset()
    devices = build_home(dataset, size)
    llm = GoldLLM(dataset.gold_texts())
    home_rss = maxrss_mb()
    if trace:
        tracemalloc.start()
    searcher = build_vector_searcher(devices, dataset.spec)
    for case in dataset.pipeline_cases:
        retrieve(case.query, devices, llm, ConversationState(), top_k=TOP_K, vector_searcher=searcher)
    report = {"size": size, "home_maxrss_mb": home_rss, "maxrss_mb": maxrss_mb()}
    if trace:
        report["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / MIB
        tracemalloc.stop()
    return report


def main(argv: list[str] | None = None) -> None:
    """Parse arguments and print the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", type=int, help="number of devices")
    parser.add_argument("--trace", action="store_true", help="also measure the tracemalloc peak")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.size, trace=args.trace)))


if __name__ == "__main__":
    main()
