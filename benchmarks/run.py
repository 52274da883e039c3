"""Run every benchmark and print the tables as Markdown: ``python -m benchmarks.run [--quick]``."""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import numpy as np

from .agent import agent_section
from .data import REPO_ROOT, data_dir, load_dataset
from .demo import demo_section
from .ha_service import ha_service_section
from .heldout import heldout_section
from .labelled_homes import SEALED, TUNED_ON, labelled_homes_checks, labelled_homes_section
from .llm_prompt import llm_prompt_section
from .paraphrase import paraphrase_section
from .perturb import perturbation_section
from .quality import quality_section
from .smartthings_bridge import smartthings_bridge_section
from .soak import soak_section
from .speed import speed_section

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .quality import Target


def git_revision() -> str:
    """Return the short HEAD commit (``no commit`` outside git or before the first commit)."""
    try:
        head = subprocess.run(  # noqa: S603 - fixed arguments
            ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607 - git from PATH is the point
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "no commit"
    return head


def render_header(*, quick: bool) -> str:
    """Return the title and the environment the numbers were measured in."""
    return "\n".join(
        [
            "# Context retrieval benchmarks",
            "",
            f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; revision: {git_revision()}; "
            f"mode: {'quick (no 10,000-device home)' if quick else 'full'}",
            f"- Python {platform.python_version()}, numpy {np.__version__}, "
            f"{os.cpu_count()} CPUs, {platform.machine()} {platform.system()}",
            f"- data: {data_dir()}",
        ]
    )


def render_targets(checks: Sequence[tuple[str, str, float, Target]]) -> str:
    """Return the summary of every target as a Markdown table."""
    lines = ["## Targets", "", "| area | metric | value | target | status |", "|---|---|---|---|---|"]
    lines.extend(
        f"| {area} | {metric} | {value:.3f} | {target.describe()} | {target.status(value)} |"
        for area, metric, value, target in checks
    )
    failed = sum(not target.passes(value) for _, _, value, target in checks)
    lines.extend(["", f"{len(checks) - failed} of {len(checks)} targets met."])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks and print the report; return 0 (targets are reported, not enforced)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="skip the 10,000-device home and memory")
    args = parser.parse_args(argv)
    print(render_header(quick=args.quick), flush=True)
    dataset = load_dataset()
    quality, quality_checks = quality_section(dataset)
    print("\n" + quality, flush=True)
    print("\n" + perturbation_section(dataset), flush=True)
    print("\n" + demo_section(), flush=True)
    print("\n" + heldout_section(), flush=True)
    print("\n" + agent_section(sealed=False), flush=True)  # set E stays sealed until the agent's last change
    homes, figures = labelled_homes_section([*TUNED_ON, *SEALED])
    print("\n" + homes, flush=True)
    print("\n" + paraphrase_section([*TUNED_ON, *SEALED]), flush=True)
    speed, speed_checks = speed_section(dataset, quick=args.quick)
    print("\n" + speed, flush=True)
    ha, ha_checks = ha_service_section()
    print("\n" + ha, flush=True)
    print("\n" + soak_section(quick=args.quick), flush=True)  # a real Home Assistant process
    bridge, bridge_checks = smartthings_bridge_section(dataset, quick=args.quick)
    print("\n" + bridge, flush=True)
    prompts, prompt_checks = llm_prompt_section()
    print("\n" + prompts, flush=True)
    checks = [
        *quality_checks,
        *labelled_homes_checks(figures),
        *speed_checks,
        *ha_checks,
        *bridge_checks,
        *prompt_checks,
    ]
    print("\n" + render_targets(checks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
