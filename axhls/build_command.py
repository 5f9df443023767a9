"""The ``build`` sub-command of ``axhls``: a bitstream of a kernel with its host link, for a board.

``axhls build FILE.py:KERNEL --board NAME [--clock-mhz F] [--baud N] -o DIR``
    writes ``DIR/KERNEL.bit`` (ECP5) or ``DIR/KERNEL.bin`` (iCE40), nextpnr's
    report ``DIR/timing.json`` and ``DIR/manifest.json`` (see :func:`hls.board.build.build`),
    and prints them, then one line: the clock, nextpnr's Fmax, the resources and
    the build's wall time.  A clock that place and route misses is one line and
    exit status 2, unless ``--allow-timing-fail``.
``axhls build --list-boards [--json]``
    lists the boards, their devices, oscillators, default clocks and PLL ranges.

Every check that needs no kernel (board, clock, baud rate, tools, output folder)
comes before the kernel is loaded.
"""

from __future__ import annotations

import sys

import artefacts
from hls.board.boards import BOARDS
from hls.board.build import DEFAULT_SEED, BuildError, build, build_settings
from hls.board.pll import output_range

from .arguments import integer, positive_number
from .command import CommandError, print_json
from .kernel_commands import add_approx_option, with_approx
from .loading import load_kernel, user_errors

__all__ = ["register", "run_build"]


def register(subparsers) -> None:
    """Add ``build`` to the ``axhls`` parser."""
    parser = subparsers.add_parser(
        "build", help="build a bitstream of a kernel with its host link for a board",
        description="Build FILE.py:KERNEL for --board with the YoWASP tools: the board's oscillator through "
                    "a PLL to --clock-mhz, the kernel's arrays in block RAM, the host link on the board's "
                    "USB-serial pins. Writes the bitstream, timing.json and manifest.json into DIR. "
                    "Exit status 2 when place and route misses the clock (unless --allow-timing-fail).")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL", nargs="?")
    parser.add_argument("--board", metavar="NAME", help=f"the board: {', '.join(BOARDS)}")
    parser.add_argument("--clock-mhz", type=positive_number, metavar="F",
                        help="the kernel's clock in MHz (default: the board's, see --list-boards)")
    parser.add_argument("--baud", type=integer(1), metavar="N",
                        help="the host link's baud rate (default 115200)")
    parser.add_argument("--seed", type=integer(0), default=DEFAULT_SEED, metavar="N",
                        help=f"nextpnr's placement seed (default {DEFAULT_SEED})")
    parser.add_argument("--allow-timing-fail", action="store_true",
                        help="write the outputs even when place and route misses the clock (the manifest says so)")
    parser.add_argument("-o", "--output", metavar="DIR", help="directory for the outputs")
    parser.add_argument("--list-boards", action="store_true", help="list the boards and exit")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    add_approx_option(parser)
    parser.set_defaults(handler=run_build)


def _list_boards(args) -> int:
    boards = [{**board.to_json(), "clock_range_mhz": list(output_range(board.family))}
              for board in BOARDS.values()]
    if args.json:
        print_json({"boards": boards})
        return 0
    print(f"{'board':12} {'device':11} {'oscillator':>10} {'default':>9} {'PLL range':>13}  serial")
    for board in boards:
        low, high = board["clock_range_mhz"]
        print(f"{board['name']:12} {board['device']:11} {board['oscillator_mhz']:>6g} MHz "
              f"{board['default_clock_mhz']:>5g} MHz {f'{low}-{high} MHz':>13}  "
              f"{board['serial_bridge']} (up to {board['max_baud']} baud)")
    return 0


def run_build(args) -> int:
    """Handler of ``axhls build``."""
    if args.list_boards:
        if args.kernel or args.board or args.output:
            raise CommandError("--list-boards takes no kernel, --board or -o")
        return _list_boards(args)
    if not args.kernel:
        raise CommandError("expected FILE.py:KERNEL (or --list-boards)")
    if not args.board:
        raise CommandError(f"--board is required; boards: {', '.join(BOARDS)}")
    if not args.output:
        raise CommandError("-o DIR is required")
    try:
        build_settings(args.board, clock_mhz=args.clock_mhz, baud=args.baud, seed=args.seed)
    except (ValueError, BuildError) as error:
        raise CommandError(str(error)) from None
    artefacts.check_directory_destination(args.output)      # before compiling, not after
    kernel = with_approx(load_kernel(args.kernel), args.approx)
    try:
        with user_errors():
            result = build(kernel, args.board, args.output, clock_mhz=args.clock_mhz, baud=args.baud,
                           allow_timing_fail=args.allow_timing_fail, seed=args.seed)
    except (ValueError, BuildError) as error:
        raise CommandError(str(error)) from None
    manifest = result.manifest
    if args.json:
        print_json({"output": str(result.output), "files": result.files, "seconds": result.seconds,
                    "manifest": manifest})
        return 0
    for name in result.files:
        print(result.output / name)
    clock = manifest["clock"]
    used = ", ".join(f"{use['used']} {cell}" for cell, use in manifest["resources"].items())
    verdict = "met" if clock["timing_met"] else "MISSED (allowed)"
    print(f"{manifest['kernel']} on {manifest['board']}: {clock['achieved_mhz']:g} MHz, nextpnr Fmax "
          f"{clock['fmax_mhz']:.1f} MHz ({verdict}); {used}; built in {result.seconds:.1f} s")
    if not clock["timing_met"]:
        print(f"axhls: warning: {manifest['board']}: place and route reached {clock['fmax_mhz']:.2f} MHz, "
              f"below the {clock['achieved_mhz']:g} MHz clock", file=sys.stderr)
    return 0
