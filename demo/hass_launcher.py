"""``python -m demo.hass_launcher --smartthings-root URL [ARGS ...]``: Home Assistant on a SmartThings replay.

Runs Home Assistant's own ``main`` (with ``ARGS``) after pointing the integration's
SmartThings client at a replay (``demo.smartthings_replay``). The client module is
imported from this repository first: Home Assistant then finds ``custom_components`` and
``custom_components.context_retrieval`` in ``sys.modules`` and loads those same module
objects rather than the configuration directory's link, so the config flow's check and
the connection both read the patched root. Run it from the repository root
(``demo.server`` does).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from homeassistant.__main__ import main as hass_main

from custom_components.context_retrieval.clients import smartthings

if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Point the SmartThings client at the replay, then run Home Assistant with the other arguments."""
    parser = argparse.ArgumentParser(prog="python -m demo.hass_launcher", description=__doc__)
    parser.add_argument(
        "--smartthings-root", required=True, metavar="URL", help="the replay's API root (/v1)"
    )
    args, hass_args = parser.parse_known_args(argv)
    smartthings.API_ROOT = args.smartthings_root  # type: ignore[misc] - the demo's one override of it
    print(f"SmartThings API root: {smartthings.API_ROOT} (in {smartthings.__file__})", flush=True)  # noqa: T201
    sys.argv = [sys.argv[0], *hass_args]
    return hass_main()


if __name__ == "__main__":
    sys.exit(main())
