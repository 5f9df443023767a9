"""The ``axhls`` command line.

Each feature registers its own sub-commands; this module only builds the
parser, dispatches, and turns user mistakes into one-line errors.

Exit status: 0 on success, 1 when a check fails (for example a simulation
mismatch), 2 for a user mistake (bad input file, unknown unit, bad option).
"""

from __future__ import annotations

import argparse
import sys


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
SUB_COMMAND_MODULES = ("hls.commands", "hls.check", "approx_units.cli")


def _sub_command_modules():
    import importlib
    modules = []
    for name in SUB_COMMAND_MODULES:
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as error:
            # Only tolerate the feature module itself being absent (for example in a
            # partial checkout); a missing dependency inside it is a real error.
            if error.name != name:
                raise
    return modules


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="axhls",
        description="Python HLS for FPGAs, and a library of approximate arithmetic units.",
    )
    parser.add_argument("--version", action="version", version=f"axhls {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _sub_command_modules():
        module.register(subparsers)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("axhls")
    except PackageNotFoundError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0
    try:
        status = args.handler(args)
    except CommandError as error:
        print(f"axhls: {error}", file=sys.stderr)
        return error.status
    except KeyboardInterrupt:
        print("axhls: interrupted", file=sys.stderr)
        return 130
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())
