"""``python -m compat PYTHON...``: the compatibility check (see ``compat/__init__.py``)."""

from compat.check import main

raise SystemExit(main())
