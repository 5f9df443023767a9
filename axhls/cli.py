"""The ``axhls`` command line.

The package :mod:`axhls` is the command line and nothing else: it imports the
libraries (:mod:`hls`, :mod:`sim`, :mod:`approx_units`), and none of them
imports it.  Each group of sub-commands lives in a module of its own
(:mod:`axhls.kernel_commands`, :mod:`axhls.check`, :mod:`axhls.units`) with a
``register(subparsers)`` function; this module only builds the parser,
dispatches, and turns user mistakes into one-line errors.

Exit status: 0 on success, 1 when a check fails (for example a simulation
mismatch), 2 for a user mistake (bad input file, unknown unit, bad option).
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import signal
import sys
import warnings
from importlib.metadata import PackageNotFoundError, version

import artefacts

__all__ = ["CommandError", "UsageError", "main", "build_parser", "missing_sub_command", "print_json", "json_safe",
           "SUB_COMMAND_MODULES"]


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


#: Modules that contribute sub-commands through ``register(subparsers)``.
SUB_COMMAND_MODULES = ("axhls.kernel_commands", "axhls.check", "axhls.units")


def _sub_command_modules():
    # Imported by name so that the parser is built in one loop; each module is the
    # command line of one library, so the order is the order of `axhls --help`.
    return [importlib.import_module(name) for name in SUB_COMMAND_MODULES]


#: Kept here for old callers; the one definition is :func:`artefacts.json_safe`.
json_safe = artefacts.json_safe


def print_json(obj) -> None:
    """Print ``obj`` as exactly one line of JSON on stdout (see :func:`json_safe`)."""
    sys.stdout.write(json.dumps(json_safe(obj), allow_nan=False) + "\n")


class UsageError(SystemExit):
    """argparse's usage error (status 2), with its message kept for ``--json``'s error object."""

    def __init__(self, message: str):
        super().__init__(2)
        self.message = message


class _ArgumentParser(argparse.ArgumentParser):
    # Sub-command parsers are made with the class of their parent, so this covers every one.
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="axhls",
        description="Python HLS for FPGAs, and a library of approximate arithmetic units.",
    )
    parser.add_argument("--version", action="version", version=f"axhls {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _sub_command_modules():
        module.register(subparsers)
    return parser


def _version() -> str:
    try:
        return version("axhls")
    except PackageNotFoundError:
        return "unknown"


def missing_sub_command(parser: argparse.ArgumentParser):
    """A handler for a command group run without its sub-command: the usage, exit status 2."""
    def handler(args) -> int:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: a sub-command is required "
              f"(see `{parser.prog} --help`)", file=sys.stderr)
        return 2
    return handler


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``) and return the exit status.

    Every user mistake ends in one line on stderr; a command run with ``--json``
    prints one JSON object on stdout whatever happens, ``{"error": ..., "status": ...}``
    when it fails.  Ctrl-C ends it with ``axhls: interrupted`` and status 130,
    SIGTERM with ``axhls: terminated`` and status 143, both after the same clean-up
    (:func:`artefacts.terminate_as_interrupt`).
    """
    with artefacts.terminate_as_interrupt():
        try:
            # Building the parser imports the libraries: Ctrl-C may come that early too.
            parser = build_parser()
        except KeyboardInterrupt as interrupt:
            _silence_abandoned_elaboratables()
            message, status = artefacts.interrupt_outcome(interrupt)
            print(f"axhls: {message}", file=sys.stderr)
            return status
        try:
            args = parser.parse_args(argv)
        except UsageError as error:
            # Still one JSON object on stdout for a command given --json, as for every other failure.
            if "--json" in (sys.argv[1:] if argv is None else argv):
                print_json({"error": error.message, "status": 2})
            raise
        handler = getattr(args, "handler", None) or missing_sub_command(parser)
        try:
            status = handler(args)
        except CommandError as error:
            return _fail(args, str(error), error.status)
        except artefacts.DestinationError as error:
            return _fail(args, str(error), 2)
        except KeyboardInterrupt as interrupt:
            return _fail(args, *artefacts.interrupt_outcome(interrupt))
        except BrokenPipeError:
            # Whoever read stdout has gone (`axhls units list | head -3`): nothing more to tell them.
            _detach_stdout()
            return 128 + signal.SIGPIPE          # what a shell reports for a program stopped by a closed pipe
        return int(status or 0)


def _detach_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush at exit does not fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass                                     # not a real file (captured in a test): nothing to flush


def _silence_abandoned_elaboratables() -> None:
    """No ``UnusedElaboratable`` warnings at exit from a command that stopped part-way.

    An error or a Ctrl-C in the middle of building hardware leaves Amaranth
    modules that nothing will elaborate; Amaranth would warn about each when the
    interpreter exits, after the one line that says what happened.  Without
    Amaranth loaded there is nothing to silence.
    """
    hdl = sys.modules.get("amaranth.hdl")
    if hdl is not None:
        warnings.filterwarnings("ignore", category=hdl.UnusedElaboratable)


def _fail(args, message: str, status: int) -> int:
    _silence_abandoned_elaboratables()
    print(f"axhls: {message}", file=sys.stderr)
    if getattr(args, "json", False):
        print_json({"error": message, "status": status})
    return status


if __name__ == "__main__":
    sys.exit(main())
