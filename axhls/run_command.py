"""``axhls run``: call a kernel on a board through its host link (:mod:`hls.board`).

``axhls run FILE.py:KERNEL --port /dev/ttyUSB1 --args ARGS.json [--json] [--baud N] [--timeout S]``
    says ``HELLO`` (refusing a board that holds another kernel), writes the arrays and
    scalars of ``ARGS.json``, starts the kernel, waits for it, and prints what it
    returned and the cycles the board counted; with ``--json`` one object
    ``{"kernel", "port", "return", "arrays", "cycles"}``.
``--port sim [--backend amaranth|icarus]``
    runs the same host code against the kernel's board top in Amaranth's simulator
    (:class:`sim.board_link.SimulatedPort`), or its Verilog under cocotb and Icarus
    (``--backend icarus``): the link, bit by bit, without a board.

Every failure on the link (no such port, no answer, a bad CRC, another kernel's
bitstream) is one line with exit status 2.
"""

from __future__ import annotations

import contextlib
import sys

from hls.board.host import DEFAULT_BAUD, LinkError, connect
from hls.board.protocol import UnreachableKernel
from sim.board_link import BACKENDS, SimulatedPort
from sim.errors import CocotbRunError, ToolUnavailable

from .arguments import integer, positive_number
from .command import CommandError, print_json
from .loading import load_args, load_kernel, user_errors

__all__ = ["register", "run_run", "SIMULATED_PORT"]

#: The ``--port`` value that runs the kernel's top in the simulator.
SIMULATED_PORT = "sim"


def register(subparsers) -> None:
    """Add ``run`` to the ``axhls`` parser."""
    parser = subparsers.add_parser(
        "run", help="call a kernel on a board over its host link",
        description="Run FILE.py:KERNEL on the board at PORT (a bitstream of `axhls build` for this kernel) "
                    "with the arguments of ARGS.json, and print its results and the cycles counted on the "
                    f"board. --port {SIMULATED_PORT} simulates the board's top instead.")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL")
    parser.add_argument("--port", required=True, metavar="PORT",
                        help=f"serial device of the board (/dev/ttyUSB1, COM3), or {SIMULATED_PORT!r} for the "
                             "board's top in Amaranth's simulator")
    parser.add_argument("--args", required=True, metavar="ARGS.json",
                        help="JSON object mapping each parameter to an integer or a list of integers")
    parser.add_argument("--baud", type=integer(1), default=DEFAULT_BAUD, metavar="N",
                        help=f"the board's baud rate (default {DEFAULT_BAUD}; not used with --port {SIMULATED_PORT})")
    parser.add_argument("--timeout", type=positive_number, default=60.0, metavar="SECONDS",
                        help="give up when the kernel has not finished after SECONDS (default 60)")
    parser.add_argument("--backend", choices=BACKENDS, default=None,
                        help=f"with --port {SIMULATED_PORT}: simulate the board's top in Amaranth's simulator "
                             "(the default) or its Verilog under Icarus Verilog")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.set_defaults(handler=run_run)


def run_run(args) -> int:
    """Handler of ``axhls run``."""
    if args.backend is not None and args.port != SIMULATED_PORT:
        raise CommandError(f"--backend applies to --port {SIMULATED_PORT} only, not to --port {args.port}")
    kernel = load_kernel(args.kernel)
    bound = load_args(args.args, kernel)
    backend = args.backend or BACKENDS[0]
    try:
        with user_errors(), contextlib.ExitStack() as stack:
            port = args.port
            if port == SIMULATED_PORT:
                port = stack.enter_context(SimulatedPort(kernel, backend=backend))
            with connect(port, kernel, baud=args.baud, run_timeout=args.timeout) as link:
                outcome = link(**bound)
                written = [array["name"] for array in link.memory_map["arrays"] if array["written"]]
    except ToolUnavailable as error:
        raise CommandError(f"{backend}: {error}") from None
    except CocotbRunError as error:
        raise CommandError(f"{backend}: {' '.join(str(error).splitlines())}", 1) from None
    except UnreachableKernel as error:
        raise CommandError(f"{args.kernel}: {error}") from None
    except LinkError as error:
        message = str(error)
        raise CommandError(message if message.startswith(f"{args.port}: ") else f"{args.port}: {message}") from None
    if args.json:
        print_json({"kernel": kernel.name, "port": args.port, **outcome.to_json()})
        return 0
    where = f"the simulated board ({backend})" if args.port == SIMULATED_PORT else args.port
    print(f"{kernel.name}: {outcome.cycles} cycles on {where}")
    print(f"  return: {outcome.to_json()['return']}")
    for name in written:
        print(f"  {name}: {outcome.arrays[name]}")
    sys.stdout.flush()
    return 0
