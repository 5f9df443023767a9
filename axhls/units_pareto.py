"""``axhls units pareto``: error against LUT equivalents, the non-dominated units, and a plot."""

from __future__ import annotations

import time
from pathlib import Path

import artefacts
from approx_units import pareto, progress, synth
from approx_units.survey import characterise_file, survey_files

from .arguments import integer, positive_number
from .command import CommandError, print_json
from .progress_options import add_progress_option, progress_wanted, stderr_log
from .units_cache import open_cache
from .units_survey import add_port_options, port_options

__all__ = ["register", "run_pareto"]


def _circuits(args, files, cache, log) -> tuple[list[dict], list[dict]]:
    """The third-party circuits of ``--with-verilog``: those measured, and those that could not be (with ``error``)."""
    measured, failed = [], []
    expected = f"{args.width} x {args.width}"
    with progress.bar(len(files), unit="circuit", description="circuits", enabled=progress_wanted(args)) as bar:
        for path in files:
            circuit = characterise_file(path, args.kind, target=args.target, timing=False, samples=args.samples,
                                        seed=args.seed, cache=cache, **port_options(args))
            bar.update()
            if "error" not in circuit and circuit["widths"] != expected:
                circuit = {"circuit": circuit["circuit"], "file": circuit["file"],
                           "error": f"{circuit['widths']} bits, not {expected} (--width {args.width})"}
            if "error" in circuit:
                failed.append(circuit)
            else:
                measured.append(circuit)
                if log:
                    log(f"{circuit['circuit']}: {args.metric}={circuit['metrics'].get(args.metric)}, "
                        f"{circuit['lut_equivalents']} LUT equivalents")
    return measured, failed


def _verdict(row) -> str:
    if row["trivial"]:
        return "trivial: no better than a constant 0 output"
    return "matched or beaten by the library's front" if row["dominated_by_library"] else "not beaten by the library"


def run_pareto(args) -> int:
    """Handler of ``axhls units pareto``; exit status 1 when a ``--with-verilog`` circuit could not be measured."""
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
    elif any(value is not None for value in port_options(args).values()):
        raise CommandError("--port-a/--port-b/--port-o name the ports of the --with-verilog circuits; "
                           "add --with-verilog DIR")
    try:
        names = [u.strip() for u in args.units.split(",")] if args.units else None
        units = pareto.candidates(args.kind, args.width, names)
        pareto.check_metric(args.metric)
        log = stderr_log(args)
        grid = pareto.coverage(units, ())
        if log:
            log(f"{len(units)} library candidates (every parameter over its whole range: "
                + ", ".join(f"{name} {total}" for name, (_, total) in grid.items()) + ")"
                + (f" and {len(files)} circuits of {args.with_verilog}" if files else "")
                + f": error metrics and synthesis on {args.target} for each"
                + (f", library candidates within a budget of {args.budget:g} s, coarsest grid first"
                   if args.budget else ""))
        circuits, failed = _circuits(args, files, cache, log)
        started = time.monotonic()
        rows = pareto.characterise(units, args.target, args.metric, samples=args.samples, seed=args.seed,
                                   cache=cache, dsp=args.dsp, log=log, verilog=circuits,
                                   progress=progress_wanted(args), budget=args.budget)
        seconds = time.monotonic() - started
    except ValueError as error:
        raise CommandError(str(error)) from None
    except synth.SynthesisError as error:
        raise CommandError(str(error), 1) from None
    pareto.plot(rows, output, metric=args.metric,
         title=f"{args.width}-bit {args.kind} on {args.target}: {args.metric} vs LUT equivalents")
    library = [r for r in rows if r["source"] == "library"]
    covered = pareto.coverage(units, library)
    distinct = sum(1 for r in library if r["same_circuit_as"] is None)
    repeats = (f" ({distinct} distinct circuits: the others trace to the same graph as an earlier candidate "
               f"and share its figures)" if distinct < len(library) else "")
    front = sorted((r for r in rows if r["pareto"]), key=lambda r: r["lut_equivalents"])
    third_party = sorted((r for r in rows if r["source"] == "verilog"), key=lambda r: r["lut_equivalents"])
    status = 1 if failed else 0
    if args.json:
        print_json({"kind": args.kind, "width": args.width, "target": args.target, "metric": args.metric,
                    "plot": str(output),
                    "grid": {"candidates": len(units), "measured": len(library), "distinct": distinct, "budget_seconds": args.budget,
                             "seconds": seconds if args.budget else None,
                             "coverage": {name: {"measured": done, "candidates": total}
                                          for name, (done, total) in covered.items()}},
                    "front": front, "candidates": rows, "failed": failed})
        return status
    if len(library) == len(units):
        print(f"Grid: all {len(units)} candidates{repeats}, every parameter over its whole range")
    else:
        print(f"Grid: {len(library)} of {len(units)} candidates{repeats} within the budget of {args.budget:g} s "
              f"({seconds:.0f} s), coarsest grid first; measured per unit: "
              + ", ".join(f"{name} {done}/{total}" for name, (done, total) in covered.items()))
    print(f"Pareto front ({len(front)} of {len(rows)} candidates), {args.metric} vs {args.target} "
          f"LUT equivalents (LUTs + carry cells):")
    for row in front:
        trivial = pareto.kind_of_trivial(row)
        print(f"  {row['lut_equivalents']:>6} LUT-eq ({row['luts']:>5} LUTs {row['carry']:>4} carry)  "
              f"{args.metric}={row['error']:<12.6g} {pareto.label(row)}" + (f"  (trivial: {trivial})" if trivial else ""))
    if third_party or failed:
        beaten = sum(1 for r in third_party if r["dominated_by_library"] and not r["trivial"])
        trivial = sum(1 for r in third_party if r["trivial"])
        print(f"Third-party circuits: {beaten} of {len(third_party) + len(failed)} matched or beaten by the "
              f"library, {len(third_party) - beaten - trivial} not beaten, {trivial} trivial, "
              f"{len(failed)} not measured:")
        for row in third_party:
            print(f"  {row['lut_equivalents']:>6} LUT-eq  {args.metric}={row['error']:<12.6g} {row['unit']}: "
                  f"{_verdict(row)}")
        for circuit in failed:
            print(f"  {circuit['circuit']}: error: {circuit['error']}")
    others = [f"{pareto.label(r)} ({pareto.kind_of_trivial(r)})" for r in library
              if pareto.kind_of_trivial(r) and not r["pareto"] and r["same_circuit_as"] is None]
    if others:
        print(f"Trivial candidates off the front: {', '.join(others)}")
    print(f"plot: {output}")
    return status


def register(commands) -> None:
    parser = commands.add_parser(
        "pareto", help="error vs LUT equivalents: the non-dominated units, and a plot",
        description="The candidates are every unit of the kind over every valid combination of its "
                    "parameters, each over its whole range, coarsest grid first; --budget stops starting "
                    "new ones after that many seconds and the output says how much of the grid was "
                    "measured. Constant and trivial units are marked as such. Third-party circuits "
                    "(--with-verilog) that cannot be measured are error lines, and the exit status is 1.")
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
    add_port_options(parser)
    parser.add_argument("--budget", type=positive_number, metavar="SECONDS",
                        help="stop starting library candidates after this long (coarsest grid first; "
                             "default: the whole grid)")
    parser.add_argument("--cache-dir", metavar="DIR", help="result cache (default ~/.cache/axhls)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress_option(parser)
    parser.set_defaults(handler=run_pareto)
