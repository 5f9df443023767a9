"""The ``compile``, ``report`` and ``sim`` sub-commands of ``axhls``.

``axhls compile FILE.py:KERNEL -o DIR``
    writes ``DIR/KERNEL.v``, ``DIR/KERNEL.report.json``, ``DIR/KERNEL.report.txt``,
    ``DIR/KERNEL.ports.json`` and ``DIR/KERNEL.ports.txt``; a new ``DIR`` appears
    whole or not at all (see :func:`artefacts.output_directory`).
``axhls report FILE.py:KERNEL [--json]``
    prints the schedule report; with ``--json`` exactly one JSON object.
``axhls sim FILE.py:KERNEL --args ARGS.json [--json] [--backend amaranth] [--vcd FILE]``
    simulates the hardware and compares it with the Python run; exit status 1 on
    a mismatch, with the first differing outputs on stderr.

Exit status 2, with one line on stderr, for every user mistake (a missing
file, a kernel outside the language, bad arguments).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import artefacts
from hls.backend.component import kernel_signature
from hls.compiler import compile_kernel
from sim.errors import CocotbRunError, SimulationTimeout, ToolUnavailable
from sim.kernel import run

from .cli import CommandError
from .loading import load_args, load_kernel, user_errors

__all__ = ["register", "run_compile", "run_report", "run_sim", "port_list"]


def register(subparsers) -> None:
    """Add ``compile``, ``report`` and ``sim`` to the ``axhls`` parser."""
    parser = subparsers.add_parser(
        "compile", help="compile a kernel to Verilog, with its schedule report and port list",
        description="Compile FILE.py:KERNEL and write KERNEL.v, KERNEL.report.json, KERNEL.report.txt, "
                    "KERNEL.ports.json and KERNEL.ports.txt into DIR.")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL")
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="directory for the outputs")
    parser.set_defaults(handler=run_compile)

    parser = subparsers.add_parser(
        "report", help="print the schedule report of a kernel",
        description="Print each loop's II, MII, depth and the source lines that bound the II.")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.set_defaults(handler=run_report)

    parser = subparsers.add_parser(
        "sim", help="simulate a kernel's hardware and compare it with its Python run",
        description="Simulate FILE.py:KERNEL on ARGS.json with memory models behind the array ports. "
                    "Exit status 0 on a match, 1 on a mismatch, 2 for bad input.")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL")
    parser.add_argument("--args", required=True, metavar="ARGS.json",
                        help="JSON object mapping each parameter to an integer or a list of integers")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.add_argument("--backend", default="amaranth", choices=("amaranth", "icarus", "verilator"),
                        help="simulator (default: amaranth)")
    parser.add_argument("--vcd", metavar="FILE", help="write a waveform to FILE")
    parser.add_argument("--max-cycles", type=_positive_int, default=1_000_000, metavar="N",
                        help="give up after N cycles (default 1000000)")
    parser.set_defaults(handler=run_sim)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {value}")
    return value


def _compile(spec: str):
    kernel = load_kernel(spec)
    with user_errors():
        return kernel, compile_kernel(kernel)


def port_list(signature) -> list[dict]:
    """The ports of a component with ``signature`` (kept for old callers: see ``KernelSignature.ports``)."""
    return signature.ports()


def run_compile(args) -> int:
    """Handler of ``axhls compile``."""
    artefacts.check_directory_destination(args.output)      # before compiling, not after
    kernel, compiled = _compile(args.kernel)
    name = compiled.ir.name
    report = compiled.report
    ports = kernel_signature(compiled.ir).ports()
    port_lines = [f"{p['direction']:6} {'signed' if p['signed'] else 'unsigned'}({p['width']}) {p['name']}"
                  for p in ports]
    outputs = {
        f"{name}.v": compiled.verilog(),
        f"{name}.report.json": json.dumps(report.to_json(), indent=2) + "\n",
        f"{name}.report.txt": report.to_text(),
        f"{name}.ports.json": json.dumps(ports, indent=2) + "\n",
        f"{name}.ports.txt": "\n".join(port_lines) + "\n",
    }
    with artefacts.output_directory(args.output) as directory:
        for filename, text in outputs.items():
            directory.write_text(filename, text)
    for filename in outputs:
        print(os.path.join(args.output, filename))
    return 0


def run_report(args) -> int:
    """Handler of ``axhls report``."""
    _, compiled = _compile(args.kernel)
    if args.json:
        print(json.dumps(compiled.report.to_json()))
    else:
        sys.stdout.write(compiled.report.to_text())
    return 0


def run_sim(args) -> int:
    """Handler of ``axhls sim``; returns 0 on a match, 1 on a mismatch."""
    kernel = load_kernel(args.kernel)
    bound = load_args(args.args, kernel)
    try:
        with user_errors():
            result = run(kernel, bound, backend=args.backend, vcd=args.vcd, max_cycles=args.max_cycles)
    except SimulationTimeout as error:
        raise CommandError(" ".join(str(error).splitlines()), 1) from None
    except ToolUnavailable as error:
        # A missing simulator is a set-up problem of the user's machine.
        raise CommandError(f"{args.backend}: {error}", 2) from None
    except CocotbRunError as error:
        raise CommandError(f"{args.backend}: {' '.join(str(error).splitlines())}", 1) from None
    except ValueError as error:
        raise CommandError(str(error), 2) from None
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        status = "match" if result.match else "MISMATCH"
        print(f"{kernel.name}: {status} in {result.cycles} cycles ({result.backend})")
        print(f"  return: {result.outputs['return']}")
    if not result.match:
        for line in result.differences[:5]:
            print(f"axhls: {kernel.name}: {line}", file=sys.stderr)
        return 1
    return 0
