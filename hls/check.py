"""Moved to :mod:`axhls.check`; this module re-exports it for old imports.

The command line lives in the package :mod:`axhls`, which the libraries never
import.  Nothing in the project imports this module: it exists only so that
code written against the old location keeps working.
"""

import warnings

from axhls.check import *  # noqa: F401,F403  (compatibility re-export)
from axhls.check import __all__  # noqa: F401

warnings.warn("hls.check moved to axhls.check", DeprecationWarning, stacklevel=2)
