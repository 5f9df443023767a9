"""``python -m axhls`` runs the ``axhls`` command line."""

import sys

from axhls.cli import main

sys.exit(main())
