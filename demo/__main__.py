"""``python -m demo``: the integration in a real Home Assistant (see ``demo.ha``)."""

import sys

from demo.ha import main

sys.exit(main())
