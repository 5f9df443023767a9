"""``python -m hls`` runs the ``axhls`` command line."""

import sys

from hls.cli import main

sys.exit(main())
