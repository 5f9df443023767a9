"""Moved to :mod:`axhls.kernel_commands`; this module re-exports it for old imports.

The command line lives in the package :mod:`axhls`, which the libraries never
import.  Nothing in the project imports this module: it exists only so that
code written against the old location keeps working.
"""

import warnings

from axhls.kernel_commands import *  # noqa: F401,F403  (compatibility re-export)
from axhls.kernel_commands import __all__  # noqa: F401

warnings.warn("hls.commands moved to axhls.kernel_commands", DeprecationWarning, stacklevel=2)
