"""``python -m hls`` runs the ``axhls`` command line (kept for old scripts; prefer ``axhls``)."""

import sys

from axhls.cli import main

sys.exit(main())
