"""The host link in simulation: its throughput on array transfers, and the benchmark kernels through it.

    python benchmarks/board_link.py                       # throughput, then every kernel's first example
    python benchmarks/board_link.py --throughput-only
    python benchmarks/board_link.py --kernels vsum,fir --all-examples

Throughput: the host code of ``hls.board`` writes and reads whole arrays of the kernel's top
(``KernelTop``) in Amaranth's simulator through ``sim.board_link.SimulatedPort``, and the
script prints the array bytes moved per transfer against the time the transfer took on the
simulated line, request and reply included, as a fraction of the 8N1 line rate (baud / 10
bytes a second). The fraction is counted in bit times, so it does not depend on the clock;
it is printed for several ``clocks_per_bit``: what is left over is the board's few cycles
per frame, which shrink as a share when the bit is longer (at the default 115200 baud, a
board's clock gives a few hundred clocks per bit).

Correctness: each benchmark kernel is called through the simulated link and its results
and arrays compared with its Python run, and the cycles the board counted with
``sim.run``'s. Exit status 1 when one differs.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import hls.board                                          # noqa: E402
from benchmarks.kernels import KERNEL_NAMES, load         # noqa: E402
from sim.board_link import SimulatedPort                   # noqa: E402
from sim.kernel import expected_outputs, run               # noqa: E402

#: (kernel, array, clocks_per_bit): what the throughput table moves.
TRANSFERS = [("gsumif", "a", 4), ("gsumif", "a", 16), ("gsumif", "a", 64),
             ("row_scan", "a", 4), ("row_scan", "out", 4), ("row_scan", "a", 16), ("row_scan", "out", 16)]


def _transfer(link, port, array, write: bool) -> tuple[int, int]:
    """(array bytes moved, simulated cycles) of writing or reading the whole of ``array``."""
    shape = link._shapes[array["name"]]
    before = port.cycles
    moved = 0
    for bank in array["banks"]:
        if write:
            link.write_memory(bank["id"], 0, [0] * bank["depth"], shape)
        else:
            link.read_memory(bank["id"], 0, bank["depth"], shape)
        moved += bank["depth"] * array["bytes"]
    return moved, port.cycles - before


def throughput() -> float:
    """Print the throughput table; returns the lowest fraction of the line rate."""
    print("array transfers through the simulated link (8N1; line rate = baud / 10 bytes/s)")
    print(f"{'kernel':10} {'array':6} {'clk/bit':>7} {'bytes':>6} {'direction':9} {'bit times':>10} "
          f"{'of line rate':>12}")
    lowest = 1.0
    ports = {}
    for name, array_name, cpb in TRANSFERS:
        kernel, _ = load(name)
        key = (name, cpb)
        if key not in ports:
            port = SimulatedPort(kernel, clocks_per_bit=cpb)
            ports[key] = (port, hls.board.connect(port, kernel))
        port, link = ports[key]
        array = next(a for a in link.memory_map["arrays"] if a["name"] == array_name)
        for write in (True, False):
            moved, cycles = _transfer(link, port, array, write)
            bit_times = cycles / cpb
            fraction = moved * 10 / bit_times
            lowest = min(lowest, fraction)
            print(f"{name:10} {array_name:6} {cpb:>7} {moved:>6} {'write' if write else 'read':9} "
                  f"{bit_times:>10.0f} {100 * fraction:>11.1f}%", flush=True)
    return lowest


def correctness(names, all_examples: bool) -> bool:
    print()
    print("benchmark kernels through the simulated link (clocks_per_bit 4), against their Python run")
    print(f"{'kernel':20} {'example':>7} {'result':8} {'board cycles':>12} {'sim.run':>8} {'line cycles':>11} "
          f"{'seconds':>7}")
    good = True
    for name in names:
        kernel, examples = load(name)
        port = SimulatedPort(kernel)
        link = hls.board.connect(port, kernel)
        for index, args in enumerate(examples if all_examples else examples[:1]):
            started, before = time.perf_counter(), port.cycles
            outcome = link(**copy.deepcopy(args))
            expected = expected_outputs(kernel, args)
            result = list(outcome.result) if isinstance(outcome.result, tuple) else outcome.result
            reference = run(kernel, args).cycles
            match = result == expected["return"] and outcome.arrays == expected["arrays"]
            same_count = outcome.cycles == reference
            good = good and match and same_count
            print(f"{name:20} {index:>7} {'match' if match else 'MISMATCH':8} {outcome.cycles:>12} "
                  f"{reference:>8}{'' if same_count else '!'} {port.cycles - before:>11} "
                  f"{time.perf_counter() - started:>7.1f}", flush=True)
    return good


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--throughput-only", action="store_true")
    parser.add_argument("--kernels", default=",".join(KERNEL_NAMES), help="comma-separated benchmark kernels")
    parser.add_argument("--all-examples", action="store_true", help="every example, not the first of each")
    args = parser.parse_args(argv)
    lowest = throughput()
    print(f"lowest: {100 * lowest:.1f}% of the line rate (target: at least 80%)")
    if args.throughput_only:
        return 0
    names = [name for name in args.kernels.split(",") if name]
    return 0 if correctness(names, args.all_examples) else 1


if __name__ == "__main__":
    sys.exit(main())
