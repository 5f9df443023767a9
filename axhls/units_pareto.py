"""``axhls units pareto``: error against LUT equivalents, the non-dominated units, and a plot."""

from __future__ import annotations

import sys
from pathlib import Path

import artefacts
from approx_units import pareto, progress, synth
from approx_units.survey import characterise_file, survey_files

from .arguments import integer
from .command import CommandError, print_json
from .progress_options import add_progress_option, progress_wanted, stderr_log
from .units_cache import open_cache

__all__ = ["register", "run_pareto"]


def run_pareto(args) -> int:
    output = Path(args.output) if args.output else Path(f"pareto_{args.kind}{args.width}_{args.target}_{args.metric}.png")
    if output.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise CommandError(f"-o {output}: the plot must be .png, .svg or .pdf")
    # Both destinations are checked before the evaluations and the synthesis, not after them.
    artefacts.check_file_destination(output)
    cache = open_cache(args.cache_dir)
    files = []
    if args.with_verilog:
        if not Path(args.with_verilog).is_dir():
            raise CommandError(f"--with-verilog {args.with_verilog}: not a directory")
        files = survey_files(args.with_verilog)
        if not files:
            raise CommandError(f"--with-verilog {args.with_verilog}: no Verilog files (*.v) in it")
    try:
        names = [u.strip() for u in args.units.split(",")] if args.units else None
        units = pareto.candidates(args.kind, args.width, names)
        pareto.check_metric(args.metric)
        log = stderr_log(args)
        if log:
            log(f"{len(units)} library units" + (f" and {len(files)} circuits of {args.with_verilog}" if files else "")
                + f": error metrics and synthesis on {args.target} for each")
        circuits = []
        with progress.bar(len(files), unit="circuit", description="circuits", enabled=progress_wanted(args)) as bar:
            for path in files:
                circuit = characterise_file(path, args.kind, target=args.target, timing=False,
                                            samples=args.samples, seed=args.seed, cache=cache)
                bar.update()
                if "error" in circuit:
                    print(f"axhls: skipping {path}: {circuit['error']}", file=sys.stderr)
                elif circuit["widths"] != f"{args.width} x {args.width}":
                    print(f"axhls: skipping {path}: {circuit['widths']} bits, not {args.width} x {args.width}",
                          file=sys.stderr)
                else:
                    circuits.append(circuit)
                    if log:
                        log(f"{circuit['circuit']}: {args.metric}={circuit['metrics'].get(args.metric)}, "
                            f"{circuit['lut_equivalents']} LUT equivalents")
        rows = pareto.characterise(units, args.target, args.metric, samples=args.samples, seed=args.seed,
                                   cache=cache, dsp=args.dsp, log=log, verilog=circuits,
                                   progress=progress_wanted(args))
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
    third_party = [r for r in rows if r["source"] == "verilog"]
    if third_party:
        print("Third-party circuits:")
        for row in sorted(third_party, key=lambda r: r["lut_equivalents"]):
            verdict = "matched or beaten by the library's front" if row["dominated_by_library"] else \
                "not beaten by the library"
            print(f"  {row['lut_equivalents']:>6} LUT-eq  {args.metric}={row['error']:<12.6g} {row['unit']}: {verdict}")
    trivial = [pareto.label(r) for r in rows if r["trivial"]]
    if trivial:
        print(f"Left off the front, no better than a constant 0 output: {', '.join(trivial)}")
    print(f"plot: {output}")
    return 0


def register(commands) -> None:
    parser = commands.add_parser("pareto", help="error vs LUT equivalents: the non-dominated units, and a plot")
    parser.add_argument("--kind", required=True, choices=("add", "mul", "div"))
    parser.add_argument("--width", type=int, required=True, metavar="N")
    parser.add_argument("--target", default="ecp5", choices=("ecp5", "xc7", "ice40"))
    parser.add_argument("--metric", default="mred", help="error metric to minimise (default mred)")
    parser.add_argument("--units", help="comma-separated unit ids to compare (default: every unit of the kind)")
    parser.add_argument("--samples", type=integer(1), help="Monte Carlo pairs (default: exhaustive up to 16 x 16 bits)")
    parser.add_argument("--seed", type=integer(0), default=0, help="Monte Carlo seed (default 0)")
    parser.add_argument("--dsp", action="store_true", help="allow DSP blocks")
    parser.add_argument("-o", "--output", metavar="FILE", help="plot file, .png/.svg/.pdf")
    parser.add_argument("--with-verilog", metavar="DIR",
                        help="add the third-party circuits of DIR (FILE.v defining FILE) in a colour of their own")
    parser.add_argument("--cache-dir", metavar="DIR", help="result cache (default ~/.cache/axhls)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress_option(parser)
    parser.set_defaults(handler=run_pareto)
