"""Moved to :mod:`axhls.units`; this module re-exports it for old imports.

The command line lives in the package :mod:`axhls`, which the libraries never
import.  Nothing in the project imports this module: it exists only so that
code written against the old location keeps working.
"""

import warnings

from axhls.units import *  # noqa: F401,F403  (compatibility re-export)
from axhls.units import __all__  # noqa: F401

warnings.warn("approx_units.cli moved to axhls.units", DeprecationWarning, stacklevel=2)
