"""The ``axhls`` command line.

The package :mod:`axhls` is the command line and nothing else: it imports the
libraries (:mod:`hls`, :mod:`sim`, :mod:`approx_units`), and none of them
imports it.  Each group of sub-commands lives in a module of its own
(:mod:`axhls.kernel_commands`, :mod:`axhls.check`, :mod:`axhls.run_command`, :mod:`axhls.units_commands`,
:mod:`axhls.build_command`) with a
``register(subparsers)`` function; this module only builds the parser,
dispatches, and turns user mistakes into one-line errors.  What the
sub-commands share (:class:`~axhls.command.CommandError`, JSON output) is in
:mod:`axhls.command`, so that they never import this module.

Exit status: 0 on success, 1 when a check fails (for example a simulation
mismatch), 2 for a user mistake (bad input file, unknown unit, bad option).
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
import warnings
from importlib.metadata import PackageNotFoundError, version

import artefacts

from .command import CommandError, missing_sub_command, print_json
from .environment import missing_dependency_line

__all__ = ["main", "build_parser"]


def _sub_command_modules():
    # Imported when the parser is built, not with this module: they import the libraries,
    # and a Ctrl-C during that import must still end in main's one line.  Each module is
    # the command line of one library; the order is the order of `axhls --help`.
    from . import build_command, check, explore_command, kernel_commands, run_command, units_commands
    return [kernel_commands, check, run_command, build_command, explore_command, units_commands]


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors keep the ``--json`` promise of one JSON object.

    The sub-command parsers are of the same class (``add_subparsers`` makes them so).
    """

    #: Whether the command line being parsed asks for ``--json`` (set by :func:`main`).
    json_output = False

    def error(self, message):
        if _Parser.json_output:
            print_json({"error": f"{self.prog}: {message}", "status": 2})
        super().error(message)          # the usage and the one error line on stderr, exit status 2


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
        except ModuleNotFoundError as error:
            line = missing_dependency_line(error, "axhls")
            if line is None:
                raise
            print(line, file=sys.stderr)
            return 2
        except KeyboardInterrupt as interrupt:
            _silence_abandoned_elaboratables()
            message, status = artefacts.interrupt_outcome(interrupt)
            print(f"axhls: {message}", file=sys.stderr)
            return status
        _Parser.json_output = "--json" in (sys.argv[1:] if argv is None else argv)
        args = parser.parse_args(argv)
        handler = getattr(args, "handler", None) or missing_sub_command(parser)
        try:
            status = handler(args)
            sys.stdout.flush()          # a closed pipe shows here, not as a traceback at exit
        except BrokenPipeError:
            return _reader_gone()
        except CommandError as error:
            return _fail(args, str(error), error.status)
        except artefacts.DestinationError as error:
            return _fail(args, str(error), 2)
        except KeyboardInterrupt as interrupt:
            return _fail(args, *artefacts.interrupt_outcome(interrupt))
        return int(status or 0)


def _reader_gone() -> int:
    """Exit status 141 (a shell's SIGPIPE status), quietly, when stdout's reader has gone.

    ``axhls report --json | head -c 100`` closes the pipe early; there is no one
    left to tell, and Python would print a traceback when it flushes stdout at
    exit, so stdout is pointed at ``/dev/null`` first (unless it is no real file,
    as when a test captures it: then there is nothing to flush).
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass
    return 128 + signal.SIGPIPE


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
