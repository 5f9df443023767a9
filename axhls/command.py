"""What every sub-command of ``axhls`` shares: its one-line failure and its output.

The sub-command modules (:mod:`axhls.kernel_commands`, :mod:`axhls.check`,
:mod:`axhls.units_commands` and its helpers) import this module, and :mod:`axhls.cli`
imports them; keeping these pieces out of :mod:`axhls.cli` is what lets the
imports run one way.
"""

from __future__ import annotations

import argparse
import json
import sys

import artefacts

__all__ = ["CommandError", "missing_sub_command", "print_json"]


class CommandError(Exception):
    """A user mistake or a failed check, reported as one line without a traceback.

    Parameters
    ----------
    message : str
        The whole line to print, for example ``"kern.py:4:8: floats are not supported"``.
    status : int
        The process exit status; 2 for bad input, 1 for a failed check.
    """

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


def print_json(obj) -> None:
    """Print ``obj`` as exactly one line of JSON on stdout (see :func:`artefacts.json_safe`)."""
    sys.stdout.write(json.dumps(artefacts.json_safe(obj), allow_nan=False) + "\n")


def missing_sub_command(parser: argparse.ArgumentParser):
    """A handler for a command group run without its sub-command: the usage, exit status 2."""
    def handler(args) -> int:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: a sub-command is required "
              f"(see `{parser.prog} --help`)", file=sys.stderr)
        return 2
    return handler
