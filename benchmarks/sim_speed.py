"""Simulated cycles per second of each simulation back end.

    python benchmarks/sim_speed.py [--kernel smooth|NAME] [--backends amaranth,icarus,verilator]

The benchmark kernels finish in at most about 1,000 cycles, too few to see a
simulator's speed behind its start-up cost, so the default kernel is
``smooth`` below: the FIR-like body of a benchmark kernel (a read, a
multiply-free recurrence through memory and an accumulator) repeated over
``rounds``. ``--kernel NAME`` measures a benchmark kernel instead, between its
examples ``--long`` and ``--short``.

Each back end runs the kernel on two inputs: a long one and a short one (zero
trip count). The fixed cost of a run (compiling the kernel, elaborating,
starting the simulator and cocotb) is the time of the short run; the speed is

    (cycles_long - cycles_short) / (seconds_long - seconds_short).

Verilog builds are cached (sim.cocotb_kernel), so one warm-up run per back end
comes first and is not timed. Prints one line per back end.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hls  # noqa: E402
from amaranth import signed, unsigned  # noqa: E402

from benchmarks.kernels import KERNEL_NAMES, load  # noqa: E402
from sim.kernel import run  # noqa: E402
from sim.errors import ToolUnavailable  # noqa: E402


@hls.kernel
def smooth(a: hls.Array[signed(16), 64], rounds: unsigned(10)) -> signed(32):
    s: signed(32) = 0
    for r in range(rounds):
        for i in range(1, 64):
            a[i] = (a[i] + a[i - 1]) >> 1
            s = s + a[i]
    return s


SMOOTH_EXAMPLES = [{"a": [(k * 977) % 2001 - 1000 for k in range(64)], "rounds": rounds}
                   for rounds in (300, 0)]


def timed(kernel, args, backend):
    began = time.perf_counter()
    result = run(kernel, args, backend=backend)
    elapsed = time.perf_counter() - began
    if not result.match:
        raise SystemExit(f"{backend}: {kernel.name} does not match its Python run: {result.differences}")
    return result.cycles, elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="simulated cycles per second of each back end")
    parser.add_argument("--kernel", default="smooth", choices=("smooth",) + KERNEL_NAMES)
    parser.add_argument("--long", type=int, default=0, help="index of the long example (default 0)")
    parser.add_argument("--short", type=int, default=1, help="index of the short example (default 1)")
    parser.add_argument("--backends", default="amaranth,icarus,verilator")
    parser.add_argument("--repeat", type=int, default=3, help="take the fastest of this many runs")
    args = parser.parse_args(argv)
    kernel, examples = (smooth, SMOOTH_EXAMPLES) if args.kernel == "smooth" else load(args.kernel)
    long_args, short_args = examples[args.long], examples[args.short]
    print(f"kernel {args.kernel}: long example #{args.long}, short example #{args.short}")
    for backend in args.backends.split(","):
        try:
            timed(kernel, short_args, backend)  # warm-up: builds the Verilog once
        except ToolUnavailable as error:
            print(f"{backend:9s}  skipped: {error}")
            continue
        long_cycles, long_seconds = min((timed(kernel, long_args, backend) for _ in range(args.repeat)),
                                        key=lambda pair: pair[1])
        short_cycles, short_seconds = min((timed(kernel, short_args, backend) for _ in range(args.repeat)),
                                          key=lambda pair: pair[1])
        speed = (long_cycles - short_cycles) / max(long_seconds - short_seconds, 1e-9)
        print(f"{backend:9s}  {speed:10,.0f} cycles/s   ({long_cycles} cycles in {long_seconds:.2f} s; "
              f"fixed cost per run {short_seconds:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
