"""Speed of the error engine (issue 3): prints measured times and pairs per second.

    .venv/bin/python benchmarks/units_speed.py            # everything (16x16 takes minutes)
    .venv/bin/python benchmarks/units_speed.py --quick    # skip the 16x16 exhaustive run
    .venv/bin/python benchmarks/units_speed.py --mitchell-width 14   # a 2^28-pair run instead

Targets: every 8x8 unit exhaustively, all metrics, in < 0.1 s; a 16x16
exhaustive Mitchell evaluation (2^32 pairs) in <= 60 s on 2 cores; an 8x8
third-party Verilog circuit exhaustively in <= 30 s.
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

import approx_units
from approx_units import evaluate as ev
from approx_units.verilog_eval import load_verilog

LOA8 = """
module loa8(input [7:0] A, input [7:0] B, output [8:0] O);
  wire carry = A[3] & B[3];
  assign O[3:0] = A[3:0] | B[3:0];
  assign O[8:4] = A[7:4] + B[7:4] + carry;
endmodule
module mul8(input [7:0] A, input [7:0] B, output [15:0] O);
  assign O = A * B;
endmodule
"""


def _cpu_seconds() -> float:
    import resource
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def best_of(function, repeats=5):
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return min(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="skip the 16x16 exhaustive Mitchell run")
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="processes for 16x16")
    parser.add_argument("--mitchell-width", type=int, default=16, help="operand width of the exhaustive run")
    args = parser.parse_args()

    print("8x8 exhaustive, all metrics (best of 5, after one warm-up that traces the unit):")
    worst = 0.0
    for name in approx_units.names():
        unit = approx_units.get(name, width=8)
        subject = ev.LibraryUnit(name, 8, 0, tuple(sorted(unit.params.items())))
        ev.evaluate(subject, progress=False)
        seconds, result = best_of(lambda: ev.evaluate(subject, progress=False))
        worst = max(worst, seconds)
        print(f"  {name:<22} {seconds * 1000:7.1f} ms  {result.samples / seconds / 1e6:6.1f} Mpairs/s  "
              f"mred={result.metrics['mred']:.5f}")
    print(f"  slowest: {worst * 1000:.1f} ms (target < 100 ms): {'met' if worst < 0.1 else 'NOT met'}")

    with tempfile.TemporaryDirectory() as work:
        path = Path(work, "circuits.v")
        path.write_text(LOA8)
        for top, kind in (("loa8", "add"), ("mul8", "mul")):
            started = time.perf_counter()
            netlist = load_verilog(path, top, kind, 8)
            loaded = time.perf_counter() - started
            result = ev.evaluate(netlist, progress=False)
            total = time.perf_counter() - started
            print(f"Verilog {top} 8x8 exhaustive: {total:.2f} s (Yosys {loaded:.2f} s, {len(netlist.gates)} gates, "
                  f"{result.samples / (total - loaded) / 1e6:.1f} Mpairs/s evaluation; target <= 30 s)")

    width = args.mitchell_width
    subject = ev.LibraryUnit("mitchell", width, 0, (("signed", False),))
    subject.resolve().model([1], [1])          # trace once, outside the timing
    # Measured under the workers' allocator settings (freed arrays are reused, not unmapped).
    ev._keep_freed_memory()
    model_ms, stats_ms, pairs = chunk_breakdown(subject.resolve())
    print(f"{width}x{width} Mitchell, one task of {pairs} pairs as a worker runs it (CPU time, best of 5): "
          f"model {model_ms:.2f} ms + statistics {stats_ms:.2f} ms per 2^20 pairs "
          f"(= {(model_ms + stats_ms) * 2 ** (2 * width - 20) / 1000:.1f} CPU-s for all 2^{2 * width} pairs)")

    if not args.quick:
        load_before = os.getloadavg()[0]
        cpu_before = _cpu_seconds()
        started = time.perf_counter()
        result = ev.evaluate(subject, exhaustive=True, workers=args.workers)
        seconds = time.perf_counter() - started
        cpu = _cpu_seconds() - cpu_before
        # On a shared machine the wall time depends on other load; CPU time over the
        # workers estimates the wall time the same run takes with the cores to itself.
        print(f"{width}x{width} exhaustive Mitchell, {args.workers} workers: {seconds:.1f} s wall, "
              f"{cpu:.1f} CPU-s (= {cpu / args.workers:.1f} s on {args.workers} idle cores), "
              f"{result.samples / seconds / 1e6:.1f} Mpairs/s wall, "
              f"{result.samples / cpu * args.workers / 1e6:.1f} Mpairs/s on idle cores "
              f"(target for 16x16: <= 60 s); mred={result.metrics['mred']:.6f} wcre={result.metrics['wcre']:.6f}")
        print(f"  load average (1 min) before / after the run: {load_before:.2f} / {os.getloadavg()[0]:.2f} "
              f"on {os.cpu_count()} cores (other processes share them)")


def chunk_breakdown(unit, rows_of_pairs=1 << 20):
    """CPU milliseconds per 2^20 pairs of one exhaustive task, split into the model and the statistics."""
    import numpy as np
    from approx_units.numpy_backend import evaluate_tiles
    lo, hi = unit.operand_range("b")
    b = np.arange(lo, hi + 1, dtype=np.uint64)[None, :]
    rows = max(1, rows_of_pairs // b.size)
    a = np.arange(3 << (unit.width - 2), (3 << (unit.width - 2)) + rows, dtype=np.uint64)[:, None]
    pattern_a, pattern_b = unit.to_patterns(a, b)
    model, stats = [], []
    for _ in range(5):
        # Each tile's statistics right after the tile, while it is in the cache, as the engine does.
        tiles = evaluate_tiles(unit.graph, {"a": pattern_a, "b": pattern_b})
        model_seconds = stats_seconds = 0.0
        while True:
            started = time.process_time()
            tile_rows, tile_cols, tile = next(tiles, (None, None, None))
            modelled = time.process_time()
            model_seconds += modelled - started
            if tile is None:
                break
            ev._tile_stats(unit, a[tile_rows], b[:, tile_cols], tile)
            stats_seconds += time.process_time() - modelled
        model.append(model_seconds)
        stats.append(stats_seconds)
    scale = 1000 * (1 << 20) / (a.size * b.size)
    return min(model) * scale, min(stats) * scale, a.size * b.size


if __name__ == "__main__":
    main()
