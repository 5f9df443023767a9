"""Bitstreams for every supported board (issue 25): resources, clock against Fmax, and the time of ``axhls build``.

For each board of ``axhls build --list-boards`` and each of a few benchmark
kernels (``vsum``: one array read; ``prefix_sum``: an array written back;
``fir``: multiplies, two arrays read, one written), this runs::

    axhls build benchmarks/kernels/KERNEL.py:KERNEL --board BOARD -o DIR --json

as a fresh process, from nothing but the kernel's file (the issue's set-up
target: one command from the README's set-up to a bitstream), and prints one row
per build: the clock the PLL gives, nextpnr's Fmax of that clock and whether it
meets it, the cells used (LUTs, flip-flops, LUT RAM, block RAM, multipliers) and the wall
time of the command.  A build that fails prints its one line instead.

The YoWASP tools compile their WebAssembly on their very first run (about
90 s for each of yosys and nextpnr, then cached in ``~/.cache/YoWASP``); run
``benchmarks/warm_synth_cache.py`` or any build first, so that the times are the
build's own.

Usage::

    .venv/bin/python benchmarks/boards.py [--boards NAME,...] [--kernels NAME,...] [--clock-mhz F]

Exit status 1 when a bitstream misses its clock or a build fails.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hls.board.boards import BOARDS  # noqa: E402

KERNELS = ["vsum", "prefix_sum", "fir"]

#: The cells shown for each family: (heading, nextpnr's cell types counted).  An iCE40 logic cell is a
#: LUT and a flip-flop, counted once; ECP5 LUT RAM (TRELLIS_RAMW) holds the small arrays that
#: Yosys does not put in block RAM.
CELLS = {
    "ecp5": [("LUT", ["TRELLIS_COMB"]), ("FF", ["TRELLIS_FF"]), ("LUTRAM", ["TRELLIS_RAMW"]),
             ("BRAM", ["DP16KD"]), ("MUL", ["MULT18X18D"])],
    "ice40": [("LC", ["ICESTORM_LC"]), ("BRAM", ["ICESTORM_RAM"]), ("DSP", ["ICESTORM_DSP"])],
}


def _axhls() -> str:
    return str(Path(sys.executable).parent / "axhls")


def build_one(board: str, kernel: str, clock_mhz: float | None, directory: Path) -> dict:
    """Run ``axhls build`` once; its JSON answer and wall time, or its one error line."""
    argv = [_axhls(), "build", f"{ROOT}/benchmarks/kernels/{kernel}.py:{kernel}", "--board", board,
            "-o", str(directory / f"{board}-{kernel}"), "--json"]
    if clock_mhz is not None:
        argv += ["--clock-mhz", str(clock_mhz)]
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.monotonic() - started
    answer = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else \
        {"error": done.stderr.strip()}
    return {"seconds": seconds, "status": done.returncode, **answer}


def _cells(manifest: dict) -> str:
    resources = manifest["resources"]
    return " ".join(f"{sum(resources.get(cell, {}).get('used', 0) for cell in cells):>5} {heading}"
                    for heading, cells in CELLS[manifest["family"]])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default=",".join(BOARDS), help="comma-separated boards (default: all)")
    parser.add_argument("--kernels", default=",".join(KERNELS), help="comma-separated benchmark kernels")
    parser.add_argument("--clock-mhz", type=float, help="one clock for every build (default: each board's)")
    args = parser.parse_args(argv)
    boards = args.boards.split(",")
    unknown = [name for name in boards if name not in BOARDS]
    if unknown:
        parser.error(f"unknown boards {', '.join(unknown)}; boards: {', '.join(BOARDS)}")
    failures = 0
    print(f"{'board':11} {'kernel':11} {'clock':>9} {'Fmax':>10}  {'timing':6} {'cells':44} {'axhls build':>11}")
    with tempfile.TemporaryDirectory(prefix="axhls-boards-") as work:
        for board in boards:
            for kernel in args.kernels.split(","):
                row = build_one(board, kernel, args.clock_mhz, Path(work))
                if row["status"] != 0:
                    failures += 1
                    print(f"{board:11} {kernel:11} failed ({row['seconds']:.1f} s): {row['error']}")
                    continue
                manifest = row["manifest"]
                clock = manifest["clock"]
                met = clock["timing_met"]
                failures += not met
                print(f"{board:11} {kernel:11} {clock['achieved_mhz']:>5g} MHz {clock['fmax_mhz']:>6.1f} MHz  "
                      f"{'met' if met else 'MISSED':6} {_cells(manifest):44} {row['seconds']:>9.1f} s",
                      flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
