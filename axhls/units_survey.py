"""``axhls units survey DIR``: a folder of third-party Verilog circuits, evaluated and synthesised, as one table.

For reproducing comparisons such as the one against EvoApproxLib: every
``*.v`` file of the folder whose name is its module (``mul8u_R92.v`` defining
``mul8u_R92``) is measured by :func:`approx_units.survey.characterise_file`:
error as ``units eval --verilog``, area as ``units area --verilog`` (unless
``--target none``).  A circuit that cannot be measured gets its one-line error
in its place in the table (and an ``error`` in its JSON row) instead of
stopping the survey, and the survey exits 1.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from approx_units import progress
from approx_units.survey import characterise_file, survey_files

from .arguments import integer
from .command import CommandError, print_json
from .progress_options import add_progress_option, progress_wanted, stderr_log
from .unit_options import add_frac_bits_option, verilog_frac_bits
from .units_cache import open_cache

__all__ = ["register", "run_survey", "add_port_options", "port_options", "port_names"]

#: Columns of the text table: (heading, row key, format).
COLUMNS = (("circuit", "circuit", "{}"), ("a x b", "widths", "{}"), ("MRED %", "mred_pct", "{:.3f}"),
           ("WCE %", "wce_pct", "{:.3f}"), ("ER %", "er_pct", "{:.2f}"), ("LUT-eq", "lut_equivalents", "{}"),
           ("LUT4", "luts", "{}"), ("carry", "carry", "{}"), ("Fmax MHz", "fmax_mhz", "{:.1f}"))


def _cell(row: dict, key: str, pattern: str) -> str:
    value = row.get(key)
    return "-" if value is None else pattern.format(value)


def port_names(text: str) -> str:
    """An argparse ``type``: one port name or several separated by commas, none empty."""
    names = text.split(",")
    if not all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", name) for name in names):
        raise argparse.ArgumentTypeError(f"expected Verilog port names separated by commas, not {text!r}")
    return text


def add_port_options(parser) -> None:
    """``--port-a``, ``--port-b``, ``--port-o``: the port names of a folder's circuits (see
    :func:`approx_units.survey.characterise_file`: each circuit takes the first it has, then the defaults)."""
    for role, what, default in (("a", "operand a's port", "A or a"), ("b", "operand b's port", "B or b"),
                                ("o", "the result port", "O or o")):
        parser.add_argument(f"--port-{role}", metavar="NAME[,NAME...]", type=port_names,
                            help=f"{what} in the circuits that have it (then the default, {default})")


def port_options(args) -> dict:
    """The keyword arguments of :func:`~approx_units.verilog_eval.load_verilog` that :func:`add_port_options` set."""
    return {"port_a": args.port_a, "port_b": args.port_b, "port_o": args.port_o}


def print_table(headings: list[str], lines: list[list[str] | str]) -> None:
    """Columns padded to their widest cell, the first left-aligned; a line given as one string
    (an error) is printed as it is, in its place, and does not widen the columns."""
    cells = [headings] + [line for line in lines if not isinstance(line, str)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(headings))]
    for line in [headings, *lines]:
        if isinstance(line, str):
            print(line)
        else:
            print("  ".join(text.rjust(width) if i else text.ljust(width)
                            for i, (text, width) in enumerate(zip(line, widths))).rstrip())


def run_survey(args) -> int:
    """Handler of ``axhls units survey``; exit status 1 when some circuit could not be measured."""
    frac_bits = verilog_frac_bits(args)
    directory = Path(args.directory)
    if not directory.is_dir():
        raise CommandError(f"{directory}: not a directory")
    files = survey_files(directory)
    if not files:
        raise CommandError(f"{directory}: no Verilog files (*.v) in it")
    cache = open_cache(args.cache_dir) if args.target != "none" else None
    log = stderr_log(args) or (lambda line: None)
    log(f"{len(files)} circuits in {directory}: error metrics"
        + ("" if args.target == "none" else f", then synthesis on {args.target}") + " for each")
    rows = []
    with progress.bar(len(files), unit="circuit", description="survey", enabled=progress_wanted(args)) as bar:
        for index, path in enumerate(files, 1):
            log(f"[{index}/{len(files)}] {path.name}")
            rows.append(characterise_file(path, args.kind, signed=args.signed,
                                          target=None if args.target == "none" else args.target,
                                          timing=not args.no_timing, samples=args.samples, seed=args.seed,
                                          workers=args.workers, cache=cache, frac_bits=frac_bits,
                                          **port_options(args)))
            bar.update()
    if args.json:
        print_json({"directory": str(directory), "kind": args.kind, "target": args.target, "rows": rows})
    else:
        columns = [c for c in COLUMNS if args.target != "none" or c[1] not in ("luts", "carry", "lut_equivalents",
                                                                              "fmax_mhz")]
        print_table([heading for heading, _, _ in columns],
                    [f"{row['circuit']}  error: {row['error']}" if "error" in row
                     else [_cell(row, key, pattern) for _, key, pattern in columns] for row in rows])
        sampled = [row["circuit"] for row in rows if "error" not in row and not row["exhaustive"]]
        if sampled:
            print(f"sampled, so WCE is the largest error seen (a lower bound): {', '.join(sampled)}")
    failed = sum("error" in row for row in rows)
    if failed:
        print(f"axhls: {failed} of {len(rows)} circuits could not be measured (their error lines are in the "
              f"{'JSON rows' if args.json else 'table'})", file=sys.stderr)
    return 1 if failed else 0


def register(commands) -> None:
    parser = commands.add_parser(
        "survey", help="evaluate and synthesise a folder of Verilog circuits into one table",
        description="Every FILE.v of DIR that defines module FILE is evaluated for error (as units eval "
                    "--verilog) and synthesised (as units area --verilog); cell-library netlists "
                    "(*_pdk45.v) are skipped. One table, or one JSON object with --json.")
    parser.add_argument("directory", metavar="DIR", help="the folder of Verilog files")
    parser.add_argument("--kind", required=True, choices=("add", "mul", "div"))
    parser.add_argument("--signed", action="store_true", help="the circuits take two's complement operands")
    add_frac_bits_option(parser, "--kind div")
    parser.add_argument("--target", default="ecp5", choices=("ecp5", "xc7", "ice40", "none"),
                        help="synthesis target, or none for error metrics only (default ecp5)")
    parser.add_argument("--no-timing", action="store_true", help="skip place and route (no Fmax)")
    parser.add_argument("--samples", type=integer(1), help="Monte Carlo pairs (default: exhaustive where allowed)")
    parser.add_argument("--seed", type=integer(0), default=0, help="Monte Carlo seed (default 0)")
    parser.add_argument("--workers", type=integer(1), default=None, help="processes for large evaluations")
    parser.add_argument("--cache-dir", metavar="DIR", help="result cache (default ~/.cache/axhls)")
    add_port_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress_option(parser)
    parser.set_defaults(handler=run_survey)
