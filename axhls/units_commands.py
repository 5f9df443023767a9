"""``axhls units ...``: list, evaluate, synthesise, export, compare and sweep the units.

With ``--json`` every sub-command prints exactly one JSON object on stdout
(non-finite numbers become ``null``).  User mistakes end in one line on
stderr and exit status 2 (see :class:`axhls.command.CommandError`).  ``export``,
``pareto`` and ``sweep`` have modules of their own (:mod:`axhls.units_export`,
:mod:`axhls.units_pareto`, :mod:`axhls.units_sweep`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import approx_units
from approx_units import evaluate, synth
from approx_units.registry import spec
from approx_units.verilog_eval import VerilogError, load_verilog, port_widths

from . import units_export, units_lut, units_pareto, units_survey, units_sweep
from .arguments import integer
from .command import CommandError, missing_sub_command, print_json
from .progress_options import add_progress_option, progress_wanted
from .unit_options import add_frac_bits_option, library_unit, verilog_arguments, verilog_frac_bits
from .units_cache import open_cache

__all__ = ["register"]

#: The metric keys of ``units eval --json``, in the order the human-readable output shows them.
EVAL_METRICS = ("er", "med", "nmed", "mred", "wce", "wcre", "mse", "bias", "mae_pct", "wce_pct")


def _unit_arguments(parser: argparse.ArgumentParser, unit_required: bool = True) -> None:
    parser.add_argument("unit", metavar="UNIT", nargs=None if unit_required else "?",
                        help="unit id (see `axhls units list`)")
    parser.add_argument("--width", type=int, metavar="N",
                        help="operand width in bits (both operands; a --verilog module's ports give it)")
    parser.add_argument("--width-a", type=int, metavar="N", help="operand a's width (default --width)")
    parser.add_argument("--width-b", type=int, metavar="M",
                        help="operand b's width (default --width; a library multiplier's width_b)")
    parser.add_argument("--param", action="append", metavar="NAME=VALUE",
                        help="unit parameter, repeatable (for example --param l=4)")
    parser.add_argument("--stages", type=integer(0), default=0, metavar="S",
                        help="pipeline register stages (default 0: combinational)")
    parser.add_argument("--signed", action="store_true", help="the two's complement variant")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


# --- list -----------------------------------------------------------------------------------

def _list(args) -> int:
    units = []
    for name in approx_units.names():
        unit_spec = spec(name)
        default = approx_units.get(name, width=8)
        units.append({
            "unit": name, "kind": unit_spec.kind, "summary": unit_spec.summary,
            "reference": unit_spec.reference,
            "params": {p.name: {"default_at_width_8": default.params.get(p.name), "doc": p.doc}
                       for p in unit_spec.params},
            "signed_variant": unit_spec.signed_variant,
        })
    if args.json:
        print_json({"units": units})
        return 0
    rows = [(entry["unit"], entry["kind"],
             ", ".join(f"{n}={p['default_at_width_8']}" for n, p in entry["params"].items()) or "-",
             entry["summary"]) for entry in units]
    rows.insert(0, ("unit", "kind", "parameters (default at 8 bits)", "summary"))
    # Each column as wide as its widest cell, so that no long parameter list pushes the summary out.
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    for row in rows:
        print("  ".join(text.ljust(width) for text, width in zip(row, widths)) + "  " + row[3])
    return 0


# --- eval -----------------------------------------------------------------------------------

def _load_array(path: str, what: str):
    try:
        if path.endswith(".npy"):
            return np.load(path)
        return np.loadtxt(path)
    except (OSError, ValueError) as error:
        raise CommandError(f"{path}: cannot read {what} ({error})") from None


def _distribution(args):
    if args.pairs:
        expected = f"{args.pairs}: expected an .npz file with arrays 'a' and 'b'"
        try:
            data = np.load(args.pairs, allow_pickle=False)
        except OSError as error:
            raise CommandError(f"{expected} ({error.strerror or 'cannot be read'})") from None
        except ValueError:
            raise CommandError(f"{expected} (it is not an .npz archive)") from None
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise CommandError(f"{expected} (it holds one array, not an archive)")
        with data:
            missing = [name for name in ("a", "b") if name not in data.files]
            if missing:
                raise CommandError(f"{expected} (it has no {' or '.join(repr(m) for m in missing)}; "
                                   f"its arrays: {', '.join(data.files) or 'none'})")
            try:
                return evaluate.Pairs(data["a"], data["b"])
            except ValueError as error:
                raise CommandError(f"{args.pairs}: {error}") from None
    if args.histogram_a or args.histogram_b:
        a = _load_array(args.histogram_a or args.histogram_b, "histogram")
        b = _load_array(args.histogram_b, "histogram") if args.histogram_b else None
        try:
            return evaluate.Histogram(a, b)
        except ValueError as error:
            raise CommandError(str(error)) from None
    return None


def _eval(args) -> int:
    if args.verilog:
        if not args.kind:
            raise CommandError("--verilog needs --top MODULE and --kind add|mul|div")
        width_a, width_b = verilog_arguments(args, done="evaluated")
        frac_bits = verilog_frac_bits(args)
        try:
            subject = load_verilog(args.verilog, args.top, args.kind, width_a, width_b=width_b,
                                   signed=args.signed, port_a=args.port_a, port_b=args.port_b,
                                   port_o=args.port_o, frac_bits=frac_bits)
        except VerilogError as error:
            raise CommandError(str(error)) from None
        label = f"verilog:{args.top}"
    else:
        verilog_frac_bits(args, verilog=False)
        unit = library_unit(args)
        subject = evaluate.LibraryUnit(unit.name, unit.width, unit.stages,
                                       tuple(sorted(unit.params.items())))
        label = unit.name
    try:
        result = evaluate.evaluate(subject, exhaustive=True if args.exhaustive else None,
                                   samples=args.samples, distribution=_distribution(args),
                                   seed=args.seed, workers=args.workers, progress=progress_wanted(args))
    except ValueError as error:
        raise CommandError(str(error)) from None
    output = result.to_dict()
    output["unit"] = label
    if args.json:
        print_json(output)
        return 0
    mode = "exhaustive" if result.exhaustive else f"{result.distribution}, seed {args.seed}"
    print(f"{label}, width {result.width}, {result.samples} pairs ({mode}), "
          f"{result.seconds:.2f} s ({result.pairs_per_second:.3g} pairs/s)")
    for name, value in result.metrics.items():
        interval = result.ci95.get(name)
        shown = f"{value:.6g}" if isinstance(value, float) else str(value)
        if interval:
            shown += f"   95% CI [{interval[0]:.6g}, {interval[1]:.6g}]"
        if name in result.maxima and not result.exhaustive:
            shown += "   (sampled*)"
        print(f"  {name:<16} {shown}")
    if result.maxima and not result.exhaustive:
        print("  * the largest error among the sampled pairs: a lower bound of the true maximum "
              "(--exhaustive measures it)")
    return 0


# --- area -----------------------------------------------------------------------------------

def _area(args) -> int:
    cache = open_cache(args.cache_dir)          # checked before the synthesis
    if args.verilog:
        return _area_of_verilog(args, cache)
    unit = library_unit(args)
    try:
        report = synth.synthesize_unit(unit, args.target, dsp=args.dsp, timing=not args.no_timing,
                                       cache=cache)
    except ValueError as error:
        raise CommandError(str(error)) from None
    except synth.SynthesisError as error:
        raise CommandError(str(error), 1) from None
    return _print_area(args, report, cache, {"unit": unit.name, "width": unit.width, "params": unit.params,
                                             "stages": unit.stages}, {},
                       f"{unit.description}, {unit.stages} stages on {args.target}")


def _print_area(args, report, cache, identity: dict, extra: dict, heading: str) -> int:
    """``units area``'s answer: one JSON object (``identity``, the report, ``extra``) or one line."""
    if args.json:
        print_json({**identity, "target": args.target, "luts": report.luts, "carry": report.carry,
                    "ffs": report.ffs, "fmax_mhz": report.fmax_mhz, "adp": report.adp,
                    "lut_equivalents": report.lut_equivalents, "dsps": report.dsps,
                    "critical_path_ns": report.critical_path_ns, "cells": report.cells,
                    "cached": cache.hits > 0, **extra})
        return 0
    adp = f"{report.adp:.0f}" if report.adp else "n/a"
    print(f"{heading}: {report.luts} LUTs, {report.carry} carry ({report.lut_equivalents} LUT equivalents), "
          f"{report.ffs} FFs, {report.dsps} DSPs, Fmax {synth.fmax_text(report.fmax_mhz)}, ADP {adp}")
    return 0


def _area_of_verilog(args, cache) -> int:
    """``units area --verilog FILE --top T``: a third-party circuit through the same cached flow."""
    width_a, width_b = verilog_arguments(args, done="synthesised")
    try:
        # Read it the way `units eval` does first: a missing module, a wrong port or a
        # sequential circuit is then one line naming the file, not a Yosys log.
        if args.kind:
            load_verilog(args.verilog, args.top, args.kind, width_a, width_b=width_b, signed=args.signed)
        ports = port_widths(args.verilog, args.top)
        source = Path(args.verilog).read_text()
    except VerilogError as error:
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(f"{args.verilog}: cannot be read ({error.strerror})") from None
    try:
        report = synth.synthesize_verilog(source, args.top, args.target, dsp=args.dsp,
                                          timing=not args.no_timing, cache=cache)
    except ValueError as error:
        raise CommandError(str(error)) from None
    except synth.SynthesisError as error:
        raise CommandError(f"{args.verilog}: {' '.join(str(error).splitlines())}", 1) from None
    operand_a = next((ports[name] for name in ("A", "a") if name in ports), None)
    return _print_area(args, report, cache, {"unit": f"verilog:{args.top}",
                                             "width": operand_a[1] if operand_a else None, "params": {}, "stages": 0},
                       {"verilog": str(args.verilog)}, f"Verilog module {args.top} ({args.verilog}) on {args.target}")


# --- registration -----------------------------------------------------------------------------

def register(subparsers) -> None:
    """Add ``units`` and its sub-commands to the ``axhls`` parser."""
    units = subparsers.add_parser("units", help="list, evaluate and synthesise approximate units",
                                  description="Characterise the approximate arithmetic units.")
    commands = units.add_subparsers(dest="units_command", metavar="SUBCOMMAND")
    units.set_defaults(handler=missing_sub_command(units))

    listing = commands.add_parser("list", help="every unit with its parameters and defaults")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    listing.set_defaults(handler=_list)

    evaluation = commands.add_parser(
        "eval", help="error metrics of a unit or of a Verilog module",
        description="Error metrics, exhaustive up to 16 x 16 operand bits by default (the compiled "
                    "engine takes seconds for 2^32 pairs), Monte Carlo with 95% confidence intervals "
                    "beyond or with --samples.")
    _unit_arguments(evaluation, unit_required=False)
    mode = evaluation.add_mutually_exclusive_group()
    mode.add_argument("--samples", type=integer(1), metavar="M", help="Monte Carlo with M operand pairs")
    mode.add_argument("--exhaustive", action="store_true", help="every operand pair (at most 16 x 16 bits)")
    evaluation.add_argument("--seed", type=integer(0), default=0, help="Monte Carlo seed (default 0)")
    evaluation.add_argument("--workers", type=integer(1), default=None,
                            help="processes for large evaluations (default: every core)")
    evaluation.add_argument("--histogram-a", metavar="FILE",
                            help="operand a's value histogram (.npy or text, one weight per value)")
    evaluation.add_argument("--histogram-b", metavar="FILE",
                            help="operand b's value histogram (default: the same as a's)")
    evaluation.add_argument("--pairs", metavar="FILE.npz", help="evaluate exactly these operand pairs (arrays a, b)")
    evaluation.add_argument("--verilog", metavar="FILE.v", help="evaluate a combinational Verilog module instead")
    evaluation.add_argument("--top", metavar="MODULE", help="the Verilog module (with --verilog)")
    evaluation.add_argument("--kind", choices=("add", "mul", "div"), help="the operation it approximates")
    evaluation.add_argument("--port-a", metavar="NAME", help="operand a's port (default A or a)")
    evaluation.add_argument("--port-b", metavar="NAME", help="operand b's port (default B or b)")
    evaluation.add_argument("--port-o", metavar="NAME", help="the result port (default O or o)")
    add_frac_bits_option(evaluation, "--verilog --kind div")
    add_progress_option(evaluation)
    evaluation.set_defaults(handler=_eval)

    area = commands.add_parser("area", help="LUTs, FFs and Fmax from Yosys and nextpnr")
    _unit_arguments(area, unit_required=False)
    area.add_argument("--target", required=True, choices=("ecp5", "xc7", "ice40"))
    area.add_argument("--dsp", action="store_true", help="allow DSP blocks (default: LUTs only)")
    area.add_argument("--no-timing", action="store_true", help="skip place and route (no Fmax)")
    area.add_argument("--cache-dir", metavar="DIR", help="result cache (default ~/.cache/axhls)")
    area.add_argument("--verilog", metavar="FILE.v", help="synthesise a third-party Verilog module instead")
    area.add_argument("--top", metavar="MODULE", help="the Verilog module (with --verilog)")
    area.add_argument("--kind", choices=("add", "mul", "div"),
                      help="with --verilog: check its ports as units eval does")
    area.set_defaults(handler=_area)

    for module in (units_export, units_pareto, units_sweep, units_lut, units_survey):
        module.register(commands)
