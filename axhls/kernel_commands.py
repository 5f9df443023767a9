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

Each takes a ``@hls.dataflow`` chain for ``KERNEL`` too (``FILE.py:CHAIN``): ``compile``
writes the chain's Verilog, report and ports; ``report`` gives each stage's II, depth and
tokens per call, each FIFO's depth, and the chain's throughput and latency over ``--tokens N``
iterations of its source stages; ``sim`` simulates the whole chain.

All three take ``--approx KIND=UNIT[:PARAM=VALUE[,PARAM=VALUE...]]``, repeatable
once per kind (``mul``, ``add``, ``sub``, ``div``, ``mod``; ``sub`` takes an adder, ``mod`` a divider): ``--approx mul=drum:k=6 --approx
div=mitchell_div_refined:index_bits=3`` is ``approx={"mul": ("drum", {"k": 6}),
"div": ("mitchell_div_refined", {"index_bits": 3})}``, over the kernel's own
``approx=`` (a kind given here replaces the kernel's; ``KIND=none`` makes that kind
exact).  ``--approx @FILE.json`` adds a JSON ``approx=`` mapping, by operation
``FILE:LINE:COL`` or kind (``{"image.py:69:35": ["drum", {"k": 4}]}``), or the
``{kernel: mapping}`` that ``axhls explore --apply`` writes.

Exit status 2, with one line on stderr, for every user mistake (a missing
file, a kernel outside the language, bad arguments).
"""

from __future__ import annotations

import json
import os
import sys

import artefacts
from hls.backend.component import kernel_signature
from hls.compiler import compile_kernel
from hls.dataflow import DEFAULT_REPORT_TOKENS, Dataflow, format_report
from sim.errors import CocotbRunError, SimulationTimeout, ToolUnavailable
from sim.kernel import run

from hls.approx import KINDS, approx_mapping, choice

from .arguments import integer, probability
from .command import CommandError
from .loading import load_args, load_json, load_kernel, user_errors

__all__ = ["register", "run_compile", "run_report", "run_sim", "parse_approx", "add_approx_option", "with_approx"]

APPROX_HELP = ("@FILE.json (an approx= mapping by operation FILE:LINE:COL, as `axhls explore --apply` writes), or "
               "approximate unit for every KIND operation (mul *, add +, sub - on an adder, div //, mod %% on a divider) "
               "whose operands are not constants: "
               "KIND=UNIT[:PARAM=VALUE[,PARAM=VALUE...]], e.g. mul=drum:k=6; KIND=none keeps it exact; "
               "once per kind")


def add_approx_option(parser) -> None:
    parser.add_argument("--approx", action="append", default=[], metavar="KIND=UNIT[:P=V,...]", help=APPROX_HELP)


def parse_approx(texts: list[str]) -> dict:
    """``--approx`` values -> ``{kind: hls.approx.UnitChoice or None}`` (``None``: ``KIND=none``).

    Raises
    ------
    axhls.command.CommandError
        (status 2) one line naming the bad value and the syntax.
    """
    syntax = "expected KIND=UNIT[:PARAM=VALUE[,PARAM=VALUE...]], e.g. mul=drum:k=6"
    chosen: dict = {}
    for text in texts:
        kind, equals, rest = text.partition("=")
        if not equals or not rest:
            raise CommandError(f"--approx {text!r}: {syntax}")
        if kind not in KINDS:
            raise CommandError(f"--approx {text!r}: unknown kind {kind!r}; allowed: {', '.join(KINDS)}")
        if kind in chosen:
            raise CommandError(f"--approx {text!r}: {kind} is given twice")
        unit, colon, parameters = rest.partition(":")
        if unit == "none":
            if colon:
                raise CommandError(f"--approx {text!r}: {kind}=none takes no parameters")
            chosen[kind] = None
            continue
        params = {}
        if colon:
            for item in parameters.split(","):
                name, equals, value = item.partition("=")
                if not equals or not name:
                    raise CommandError(f"--approx {text!r}: parameter {item!r}: {syntax}")
                try:
                    params[name] = int(value)
                except ValueError:
                    raise CommandError(f"--approx {text!r}: parameter {name} must be an integer, "
                                       f"not {value!r}") from None
        try:
            chosen[kind] = choice(kind, unit, params, where=f"--approx {text}")
        except ValueError as error:
            raise CommandError(str(error)) from None
    return chosen


def _approx_file(text: str, kernel) -> dict:
    """``--approx @FILE.json``: an ``approx=`` mapping (operation key or kind -> unit or [unit, {params}]),
    or ``{kernel: mapping}`` as ``axhls explore --apply`` writes it (this kernel's entry is taken)."""
    data = load_json(text[1:], f"--approx {text}")
    if isinstance(data, dict) and kernel.name in data and isinstance(data[kernel.name], dict):
        data = data[kernel.name]
    if not isinstance(data, dict):
        raise CommandError(f"--approx {text}: expected a JSON object mapping operations or kinds to units")
    converted = {key: tuple(value) if isinstance(value, list) else value for key, value in data.items()}
    try:
        return approx_mapping(converted)
    except ValueError as error:
        raise CommandError(f"--approx {text}: {error}") from None


def with_approx(kernel, texts: list[str]):
    """``kernel`` with the ``--approx`` options over its own ``approx=`` mapping."""
    if not texts:
        return kernel
    mapping = dict(kernel.approx)
    for text in texts:
        if text.startswith("@"):
            mapping.update(_approx_file(text, kernel))
    texts = [text for text in texts if not text.startswith("@")]
    for kind, value in parse_approx(texts).items():
        if value is None:
            mapping.pop(kind, None)
        else:
            mapping[kind] = value
    return kernel.with_approx(mapping)


def register(subparsers) -> None:
    """Add ``compile``, ``report`` and ``sim`` to the ``axhls`` parser."""
    parser = subparsers.add_parser(
        "compile", help="compile a kernel to Verilog, with its schedule report and port list",
        description="Compile FILE.py:KERNEL and write KERNEL.v, KERNEL.report.json, KERNEL.report.txt, "
                    "KERNEL.ports.json and KERNEL.ports.txt into DIR.")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL", help="a kernel, or an @hls.dataflow chain")
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="directory for the outputs")
    add_approx_option(parser)
    parser.set_defaults(handler=run_compile)

    parser = subparsers.add_parser(
        "report", help="print the schedule report of a kernel",
        description="Print each loop's II, MII, depth and the source lines that bound the II.")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL", help="a kernel, or an @hls.dataflow chain")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.add_argument("--tokens", type=integer(1), default=DEFAULT_REPORT_TOKENS, metavar="N",
                        help=f"a chain: the iterations of its source stages its throughput and latency are "
                             f"given for (default {DEFAULT_REPORT_TOKENS})")
    add_approx_option(parser)
    parser.set_defaults(handler=run_report)

    parser = subparsers.add_parser(
        "sim", help="simulate a kernel's hardware and compare it with its Python run",
        description="Simulate FILE.py:KERNEL on ARGS.json with memory models behind the array ports. "
                    "Exit status 0 on a match, 1 on a mismatch, 2 for bad input.")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL", help="a kernel, or an @hls.dataflow chain")
    parser.add_argument("--args", required=True, metavar="ARGS.json",
                        help="JSON object mapping each parameter to an integer or a list of integers")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    parser.add_argument("--backend", default="amaranth", choices=("amaranth", "icarus", "verilator"),
                        help="simulator (default: amaranth)")
    parser.add_argument("--vcd", metavar="FILE", help="write a waveform to FILE")
    parser.add_argument("--max-cycles", type=integer(1), default=1_000_000, metavar="N",
                        help="give up after N cycles (default 1000000); the Python run before the "
                             "hardware's stops when one loop has run N iterations, which the hardware "
                             "could not finish in N cycles either")
    parser.add_argument("--stall-probability", type=probability, default=0.0, metavar="P",
                        help="streams: in each cycle the producer of every input stream waits, and the "
                             "consumer of every output stream is not ready, with probability P (default 0)")
    parser.add_argument("--stall-seed", type=integer(0), default=0, metavar="N",
                        help="seed of the stream stalls (default 0): the same seed, the same run")
    add_approx_option(parser)
    parser.set_defaults(handler=run_sim)


def _design(spec: str, approx: list[str]):
    """The kernel (with ``--approx``) or the chain ``spec`` names."""
    design = load_kernel(spec, chains=True)
    if isinstance(design, Dataflow):
        if approx:
            raise CommandError(f"--approx {approx[0]}: {design.name} is an @hls.dataflow chain; --approx applies "
                               f"to kernels (give each stage its approx= instead)")
        return design
    return with_approx(design, approx)


def _compile(spec: str, approx: list[str]):
    """``(kernel, compiled)``, or ``(chain, None)`` for a chain (its depths derived and checked)."""
    design = _design(spec, approx)
    with user_errors():
        if isinstance(design, Dataflow):
            design.plan()
            return design, None
        return design, compile_kernel(design)


def run_compile(args) -> int:
    """Handler of ``axhls compile``."""
    artefacts.check_directory_destination(args.output)      # before compiling, not after
    design, compiled = _compile(args.kernel, args.approx)
    if compiled is None:
        name, ports, verilog = design.name, design.signature().ports(), design.verilog()
        with user_errors():
            data = design.report_data()
        report_json, report_text = data, format_report(data) + "\n"
    else:
        name, ports, verilog = compiled.ir.name, kernel_signature(compiled.ir).ports(), compiled.verilog()
        report_json, report_text = compiled.report.to_json(), compiled.report.to_text()
    port_lines = [f"{p['direction']:6} {'signed' if p['signed'] else 'unsigned'}({p['width']}) {p['name']}"
                  for p in ports]
    outputs = {
        f"{name}.v": verilog,
        f"{name}.report.json": json.dumps(report_json, indent=2) + "\n",
        f"{name}.report.txt": report_text,
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
    design, compiled = _compile(args.kernel, args.approx)
    if compiled is None:
        with user_errors():
            data = design.report_data(args.tokens)
        print(json.dumps(data) if args.json else format_report(data))
    elif args.json:
        print(json.dumps(compiled.report.to_json()))
    else:
        sys.stdout.write(compiled.report.to_text())
    return 0


def run_sim(args) -> int:
    """Handler of ``axhls sim``; returns 0 on a match, 1 on a mismatch."""
    kernel = _design(args.kernel, args.approx)
    bound = load_args(args.args, kernel)
    try:
        with user_errors(loop_limit_option="--max-cycles"):
            result = run(kernel, bound, backend=args.backend, vcd=args.vcd, max_cycles=args.max_cycles,
                         stall_probability=args.stall_probability, stall_seed=args.stall_seed)
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
        for name, tokens in result.outputs.get("streams", {}).items():
            print(f"  stream {name}: {len(tokens)} tokens: {tokens}")
    if not result.match:
        for line in result.differences[:5]:
            print(f"axhls: {kernel.name}: {line}", file=sys.stderr)
        return 1
    return 0
