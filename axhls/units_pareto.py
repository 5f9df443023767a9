"""``axhls units pareto``: error against LUT equivalents, the non-dominated units, and a plot."""

from __future__ import annotations

import sys
from pathlib import Path

import artefacts
from approx_units import pareto, synth

from .cli import CommandError, print_json
from .units_cache import open_cache

__all__ = ["register", "run_pareto"]


def run_pareto(args) -> int:
    output = Path(args.output) if args.output else Path(f"pareto_{args.kind}{args.width}_{args.target}_{args.metric}.png")
    if output.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise CommandError(f"-o {output}: the plot must be .png, .svg or .pdf")
    # Both destinations are checked before the evaluations and the synthesis, not after them.
    artefacts.check_file_destination(output)
    cache = open_cache(args.cache_dir)
    try:
        names = [u.strip() for u in args.units.split(",")] if args.units else None
        units = pareto.candidates(args.kind, args.width, names)
        log = None if args.json else (lambda line: print(line, file=sys.stderr))
        rows = pareto.characterise(units, args.target, args.metric, samples=args.samples, seed=args.seed,
                            cache=cache, dsp=args.dsp, log=log)
    except ValueError as error:
        raise CommandError(str(error)) from None
    except synth.SynthesisError as error:
        raise CommandError(str(error), 1) from None
    pareto.plot(rows, output, metric=args.metric,
         title=f"{args.width}-bit {args.kind} on {args.target}: {args.metric} vs LUT equivalents")
    front = sorted((r for r in rows if r["pareto"]), key=lambda r: r["lut_equivalents"])
    if args.json:
        print_json({"kind": args.kind, "width": args.width, "target": args.target,
                     "metric": args.metric, "plot": str(output), "front": front, "candidates": rows})
        return 0
    print(f"Pareto front ({len(front)} of {len(rows)} candidates), {args.metric} vs {args.target} "
          f"LUT equivalents (LUTs + carry cells):")
    for row in front:
        print(f"  {row['lut_equivalents']:>6} LUT-eq ({row['luts']:>5} LUTs {row['carry']:>4} carry)  "
              f"{args.metric}={row['error']:<12.6g} {pareto.label(row)}")
    print(f"plot: {output}")
    return 0


def register(commands) -> None:
    parser = commands.add_parser("pareto", help="error vs LUT equivalents: the non-dominated units, and a plot")
    parser.add_argument("--kind", required=True, choices=("add", "mul", "div"))
    parser.add_argument("--width", type=int, required=True, metavar="N")
    parser.add_argument("--target", default="ecp5", choices=("ecp5", "xc7", "ice40"))
    parser.add_argument("--metric", default="mred", help="error metric to minimise (default mred)")
    parser.add_argument("--units", help="comma-separated unit ids to compare (default: every unit of the kind)")
    parser.add_argument("--samples", type=int, help="Monte Carlo pairs (default: exhaustive up to 2 x 12 bits)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dsp", action="store_true", help="allow DSP blocks")
    parser.add_argument("-o", "--output", metavar="FILE", help="plot file, .png/.svg/.pdf")
    parser.add_argument("--cache-dir", metavar="DIR", help="result cache (default ~/.cache/axhls)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run_pareto)
