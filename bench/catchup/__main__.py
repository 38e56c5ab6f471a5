"""``python -m bench.catchup``: see :mod:`bench.catchup.cli`."""

import sys

from bench.catchup.cli import main

sys.exit(main())
