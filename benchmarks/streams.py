"""Stream kernels (issue 22): throughput, random stalls, and Fmax after place and route.

    python benchmarks/streams.py [--tokens N] [--trials K] [--app-trials K] [--no-fmax] [--clocks MHZ ...]
                                 [--seeds S] [--fifo-only]

For each kernel of ``examples/streams.py``:

* ``II``/``depth``: its pipelined loop, from the report;
* ``cycles``: simulated in Amaranth's simulator over N tokens (``start`` to ``done``), without
  stalls, and ``per token``, cycles / N: an II-1 loop that reads one token and writes one
  moves a token every cycle, plus the handshake and the pipeline's depth;
* ``stalled``: K runs under random ``valid``/``ready`` stalls of probability 0.3 on every input
  and output (seeds 0 .. K-1): how many gave exactly the golden model's tokens, and their
  mean cycles;
* ``Fmax``: placed and routed by nextpnr-ecp5 at each clock (:func:`benchmarks.fmax_sweep.measure`:
  every port registered, seeds 1 .. S on a close call, median), against the clock the report
  claims. The stall holds every register of the kernel, so its enable is a high-fanout net.

And for the ``detector`` chain (``@hls.dataflow`` of the three kernels):

* ``cycles`` over N tokens, against the issue's bound 1.05 x (N + the stages' depths + a cycle
  per FIFO), and against the three kernels run one after another (the sequential version);
* K stalled runs, as above;
* Fmax at 100 MHz (seeds 1 .. S, median; :func:`approx_units.synth.synthesize_kernel_seeds`),
  against the lowest claim of its stages, with the chain's LUT4 and FF;

And for the applications' chains on their full inputs, the ECG detector of ``examples/apps/ecg.py``
(its three kernels as ``ecg.detector``, 4,064 samples of the 20.3 s record) and the blur -> Sobel
pair of ``examples/apps/image.py`` (``image.edges``, the 64 x 64 image, 4,096 pixels): the chain's
cycles against the same bound, against the array kernels it replaces run one after another, and
whether its tokens, free and in ``--app-trials`` runs under stalls of probability 0.3 on every
input and output, are the sequential kernels' results (beats; Sobel's array and peak), bit for bit.

And the FIFOs of these three chains at the depths their plans give (also alone, with
``--fifo-only``; skipped with ``--no-fmax``): each synthesised on its own (``synth_ecp5 -nodsp
-nobram -nolutram -nowidelut``, no place and route), as the chain builds it
(:func:`hls.backend.fifo.chain_fifo`) and as ``amaranth.lib.fifo.SyncFIFO`` of the same size
(what the chains used before): LUT-equivalents (LUT4 + 2 x CCU2C + 6 x TRELLIS_DPR16X4) and FF,
LUT-eq per stored bit against the issue's target of about one at most, and the chain report's
``area_estimate`` beside the measurement.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def _arguments(kernel, tokens: int, rng: random.Random) -> dict:
    if kernel.name == "moving_sum":
        return {"s": [rng.randint(-2048, 2047) for _ in range(tokens)], "n": tokens}
    return {"s": [rng.randint(0, 255) for _ in range(tokens)], "n": tokens, "level": 128}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1000, help="tokens per run (default 1000)")
    parser.add_argument("--trials", type=int, default=20, help="stalled runs per kernel (default 20)")
    parser.add_argument("--no-fmax", action="store_true", help="skip place and route")
    parser.add_argument("--clocks", type=float, nargs="+", default=[100.0, 150.0], metavar="MHZ")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--app-trials", type=int, default=1,
                        help="stalled runs of each application's chain on its full input (default 1)")
    parser.add_argument("--fifo-only", action="store_true",
                        help="only synthesise the chains' FIFOs (no simulation, no place and route)")
    options = parser.parse_args(argv)
    if options.tokens < 1 or options.trials < 1 or options.app_trials < 1 or not 1 <= options.seeds <= 20:
        parser.error("--tokens, --trials and --app-trials must be at least 1, --seeds in 1..20")

    from axhls.loading import import_file
    from sim.kernel import run
    examples = import_file(os.path.join(ROOT, "examples", "streams.py"))
    if options.fifo_only:
        return 1 if _fifo_area(examples) else 0
    kernels = [examples.moving_sum, examples.threshold_runs]
    failed = False
    print(f"{'kernel':<16} {'II':>3} {'depth':>5} {'tokens':>6} {'cycles':>7} {'per token':>9}  stalled (p = 0.3)")
    for kernel in kernels:
        loop = next(loop for loop in kernel.report().data["loops"] if loop["pipelined"])
        args = _arguments(kernel, options.tokens, random.Random(kernel.name))
        free = run(kernel, args, max_cycles=10 * options.tokens + 100)
        stalled = [run(kernel, args, stall_probability=0.3, stall_seed=seed, max_cycles=20 * options.tokens + 100)
                   for seed in range(options.trials)]
        good = sum(result.match for result in stalled)
        failed |= not free.match or good < len(stalled)
        print(f"{kernel.name:<16} {loop['ii']:>3} {loop['depth']:>5} {options.tokens:>6} {free.cycles:>7} "
              f"{free.cycles / options.tokens:>9.3f}  {good}/{len(stalled)} equal to Python, mean "
              f"{statistics.mean(result.cycles for result in stalled):.0f} cycles")
    if not options.no_fmax:
        from approx_units.synth import ResultCache
        from benchmarks.fmax_sweep import measure
        cache = ResultCache()
        cache.check()
        print(f"\n{'kernel':<16} {'clock':>6} {'claim':>6} {'LUT4':>5} {'FF':>5}  Fmax (seeds)")
        for kernel in kernels:
            for clock in options.clocks:
                row = measure(kernel, clock, options.seeds, cache)
                fmax = ", ".join(f"{value:.1f}" for value in row["fmax_mhz"].values())
                verdict = "reaches its claim" if row["reaches_claim"] else "MISSES its claim"
                failed |= not row["reaches_claim"]
                print(f"{kernel.name:<16} {clock:>6g} {row['claimed_mhz']:>6g} {row['lut4']:>5} {row['ff']:>5}  "
                      f"{fmax} (median {row['median_mhz']:.1f}): {verdict}")
    failed |= _app_chains(options)
    failed |= _chain(examples, options)
    if not options.no_fmax:
        failed |= _fifo_area(examples)
    return 1 if failed else 0


#: The issue's target: a FIFO's LUT-eq per stored bit, "at most about 1".
LUTS_PER_BIT = 1.0


def _fifo_area(examples) -> bool:
    """Each FIFO of the ``detector`` chain and of the applications' chains, synthesised as the
    chain builds it and as a ``SyncFIFO``; whether one costs more than :data:`LUTS_PER_BIT`."""
    from amaranth.lib import fifo
    from benchmarks.fifo_area import synthesize_fifo as area
    from examples.apps import ecg, image
    from hls.backend.fifo import area_estimate, chain_fifo, implementation
    over = False
    print(f"\n{'chain':<16} {'FIFO':<12} {'width x depth':>13} {'implementation':<15} {'LUT-eq':>6} {'FF':>4} "
          f"{'LUT-eq/bit':>10} {'estimate':>8}   SyncFIFO: LUT-eq, FF, LUT-eq/bit")
    for label, chain in (("detector", examples.detector), ("ecg.detector", ecg.detector),
                         ("image.edges", image.edges)):
        chain.plan()
        for item in chain.fifos.values():
            width, depth = item.shape.width, item.depth
            bits = width * depth
            ours, theirs = area(chain_fifo(width, depth)), area(fifo.SyncFIFO(width=width, depth=depth))
            over |= ours.lut_equivalents > LUTS_PER_BIT * bits
            print(f"{label:<16} {item.name:<12} {f'{width} x {depth}':>13} {implementation(depth):<15} "
                  f"{ours.lut_equivalents:>6} {ours.ffs:>4} {ours.lut_equivalents / bits:>10.2f} "
                  f"{area_estimate(width, depth)['lut_equivalents']:>8}   {theirs.lut_equivalents}, {theirs.ffs}, "
                  f"{theirs.lut_equivalents / bits:.2f}")
    print(f"every FIFO at most {LUTS_PER_BIT:g} LUT-eq per stored bit: {'no' if over else 'yes'}")
    return over


def _app_chains(options) -> bool:
    """The applications' chains (ECG detector, image blur -> Sobel) on their full inputs: cycles
    against the bound and against the array kernels they replace run one after another, and
    whether the chain's tokens, free and under stalls, are the sequential run's, bit for bit."""
    from examples.apps import ecg, image
    from sim.kernel import run
    missed = False
    for app, chain in ((ecg, ecg.detector), (image, image.edges)):
        data = app.default_input()
        trace = []
        app.run(app.KERNELS, data, trace)
        args = app.chain_arguments(data)
        if app is ecg:
            tokens = args["n"] - ecg.PAD
            replaced = trace
            expected = {"beats": list(map(int, ecg.run(ecg.KERNELS, data) + ecg.PAD + ecg.DELAY))}
        else:
            tokens = len(args["img"])
            replaced = trace[:2]
            mag = [0] * image.N
            peak = image.sobel(b=list(trace[1][1]["b"]), mag=mag, rows=args["rows"])
            expected = {"mag": mag[:tokens], "peak": [peak]}
        sequential = [run(kernel, arguments, max_cycles=200_000) for kernel, arguments in replaced]
        free = run(chain, args, max_cycles=200_000)
        stalled = [run(chain, args, stall_probability=0.3, stall_seed=seed, max_cycles=400_000)
                   for seed in range(options.app_trials)]
        same = [result.match and all(result.outputs["streams"][name] == value for name, value in expected.items())
                for result in [free, *stalled]]
        # The image's stages read and write under conditions, so the report has no figures;
        # the bound needs only the schedules.
        bound = chain.plan().bound(tokens)
        one_after_another = sum(result.cycles for result in sequential)
        stages = ", ".join(f"{kernel.name} {result.cycles}" for (kernel, _), result in zip(replaced, sequential))
        ok = all(same) and all(result.match for result in sequential) and free.cycles <= bound
        missed |= not ok
        print(f"\n{app.__name__.rsplit('.', 1)[-1]}.{chain.name} ({' -> '.join(s.name for s in chain.stages)}), "
              f"{tokens} tokens: {free.cycles} cycles (bound {bound:.0f}: "
              f"{'within' if free.cycles <= bound else 'MISSED'}), {one_after_another} with the array kernels "
              f"one after another ({stages}): {one_after_another / free.cycles:.2f}x; "
              f"{sum(same[1:])}/{len(stalled)} runs under stalls of p = 0.3 "
              f"(mean {statistics.mean(result.cycles for result in stalled):.0f} cycles) and the free run "
              f"{'bit-identical to' if same[0] else 'DIFFERENT from'} the sequential kernels' results")
    return missed


def _chain(examples, options) -> bool:
    """The ``detector`` chain's rows; whether a target was missed."""
    from sim.kernel import run
    chain = examples.detector
    n = options.tokens
    args = _arguments(examples.moving_sum, n, random.Random("detector"))
    free = run(chain, args, max_cycles=10 * n + 100)
    # The bound from the chain's report: 1.05 x (N + the stages' depths + the FIFOs' latencies).
    figures = chain.report_data(n)["figures"]
    bound = figures["bound"]
    # The sequential version: each kernel over the whole input before the next starts (every
    # stage of this chain reads `s` and writes `o`).
    tokens, one_after_another = list(args["s"]), 0
    for stage in chain.stages:
        arguments = {name: (source if kind == "const" else args[source]) for name, (kind, source) in stage.scalars.items()}
        result = run(stage.kernel, {**arguments, "s": tokens}, max_cycles=10 * n + 100)
        one_after_another += result.cycles
        tokens = result.outputs["streams"]["o"]
    stalled = [run(chain, args, stall_probability=0.3, stall_seed=seed, max_cycles=20 * n + 100)
               for seed in range(options.trials)]
    good = sum(result.match for result in stalled)
    missed = not free.match or free.cycles > bound or good < len(stalled)
    missed |= figures["cycles"] < free.cycles       # the report's figure is an upper bound (conditional writes)
    depths = ", ".join(f"{item.name} {item.depth}" for item in chain.fifos.values())
    print(f"\nchain detector ({' -> '.join(stage.name for stage in chain.stages)}), {n} tokens: {free.cycles} "
          f"cycles (the report: at most {figures['cycles']}; bound 1.05 x ({n} + {figures['stage_depths']} + "
          f"{figures['fifo_latencies']}) = {bound:.1f}: {'within' if free.cycles <= bound else 'MISSED'}; FIFO "
          f"depths from the schedules: {depths}), "
          f"{one_after_another} with the kernels one after another; {good}/{len(stalled)} stalled runs equal to "
          f"Python, mean {statistics.mean(result.cycles for result in stalled):.0f} cycles")
    if options.no_fmax:
        return missed
    from approx_units.synth import synthesize_kernel_seeds
    claim = min(stage.kernel.report().data["claimed_clock_mhz"] for stage in chain.stages)
    reports = synthesize_kernel_seeds(chain.verilog(), chain.name, clock_mhz=100.0, seeds=range(1, options.seeds + 1))
    median = statistics.median(report.fmax_mhz for report in reports)
    missed |= median < min(claim, 100.0)
    print(f"chain detector at 100 MHz: LUT4 {reports[0].luts}, FF {reports[0].ffs}, Fmax "
          f"{', '.join(f'{report.fmax_mhz:.1f}' for report in reports)} (median {median:.1f}; the stages claim "
          f"{claim:g}): {'reaches' if median >= min(claim, 100.0) else 'MISSES'} it")
    return missed


if __name__ == "__main__":
    sys.exit(main())
