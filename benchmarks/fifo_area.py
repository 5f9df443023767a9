"""The chain FIFOs' area (issue 22, Area): the estimate of the chain report, calibrated and checked.

    python benchmarks/fifo_area.py [--fit]

Each FIFO of :mod:`hls.backend.fifo` (``RegisterFIFO`` up to two tokens, ``LutRamFIFO``
deeper: what :func:`hls.backend.fifo.chain_fifo` builds) is synthesised on its own with the
project's flow (``synth_ecp5 -nodsp -nobram -nolutram -nowidelut``; LUT-equivalents =
LUT4 + 2 x CCU2C + 6 x TRELLIS_DPR16X4, :mod:`approx_units.synth`), on two sets of sizes:

* ``CALIBRATION``, the sizes the control's LUTs were fitted to: with ``--fit`` the script
  prints, from the measured LUT-eq less the data path's (:func:`hls.backend.fifo.data_luts`),
  the mean for each register depth (:data:`hls.backend.fifo.REGISTER_CONTROL_LUTS`) and, for
  LUT RAM (:data:`hls.backend.fifo.LUT_RAM_CONTROL_LUTS`), the least-squares line in the level's
  bits of the one-bank depths (up to 16) and the mean of the deeper ones, to be copied there;
* ``HELD_OUT``, widths and depths the fit never saw: the estimate's error on them.

One row per FIFO: width x depth, implementation, measured LUT-eq and FF, the estimate's, and
LUT-eq per stored bit (the issue's target: about one at most).  The last lines give the
estimate's largest error on each set.  Synthesis is cached (``$AXHLS_CACHE_DIR``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: (width, depth) of the fit, at widths of the chains' tokens.
CALIBRATION = [(width, depth) for width in (8, 16) for depth in (1, 2, 3, 4, 8, 16, 17, 33, 64)]
#: (width, depth) the fit never saw.
HELD_OUT = [(1, 2), (14, 2), (24, 1), (5, 9), (14, 26), (13, 48), (32, 5), (1, 26)]


def synthesize_fifo(queue, cache=None):
    """The :class:`approx_units.synth.AreaReport` of one FIFO (``amaranth.lib.fifo``'s interface)
    on its own, without place and route."""
    from amaranth.back import verilog
    from approx_units.synth import synthesize_verilog
    text = verilog.convert(queue, name="fifo", emit_src=False,
                           ports=[queue.w_data, queue.w_en, queue.w_rdy, queue.r_data, queue.r_en, queue.r_rdy])
    return synthesize_verilog(text, "fifo", timing=False, cache=cache)


def rows(sizes, cache=None):
    """``[(width, depth, measured AreaReport of chain_fifo(width, depth), estimate dict)]``."""
    from hls.backend.fifo import area_estimate, chain_fifo
    return [(width, depth, synthesize_fifo(chain_fifo(width, depth), cache), area_estimate(width, depth))
            for width, depth in sizes]


def print_rows(title: str, found) -> float:
    """Prints the rows; returns the estimate's largest relative LUT-eq error."""
    from hls.backend.fifo import implementation
    print(f"\n{title}")
    print(f"{'width x depth':>14} {'implementation':<16} {'LUT-eq':>6} {'FF':>5} {'estimate':>8} {'est. FF':>7} "
          f"{'error':>7} {'LUT-eq/bit':>10}")
    worst = 0.0
    for width, depth, area, estimate in found:
        error = (estimate["lut_equivalents"] - area.lut_equivalents) / area.lut_equivalents
        worst = max(worst, abs(error))
        print(f"{f'{width} x {depth}':>14} {implementation(depth):<16} {area.lut_equivalents:>6} {area.ffs:>5} "
              f"{estimate['lut_equivalents']:>8} {estimate['ffs']:>7} {100 * error:>+6.1f}% "
              f"{area.lut_equivalents / (width * depth):>10.2f}")
    return worst


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true",
                        help="print the control LUTs per depth fitted to the calibration sizes")
    options = parser.parse_args(argv)
    from approx_units.synth import ResultCache
    from hls.backend.fifo import REGISTER_DEPTH, data_luts
    cache = ResultCache()
    cache.check()
    calibration = rows(CALIBRATION, cache)
    if options.fit:
        registers, one_bank, banks = {}, [], []
        for width, depth, area, _ in calibration:
            control = area.lut_equivalents - data_luts(width, depth)
            if depth <= REGISTER_DEPTH:
                registers.setdefault(depth, []).append(control)
            elif depth <= 16:
                one_bank.append((depth.bit_length(), control))
            else:
                banks.append(control)
        print("REGISTER_CONTROL_LUTS = {" + ", ".join(f"{depth}: {round(statistics.mean(values))}"
                                                       for depth, values in sorted(registers.items())) + "}")
        slope, intercept = statistics.linear_regression([x for x, _ in one_bank], [y for _, y in one_bank])
        print(f"LUT_RAM_CONTROL_LUTS = ({intercept:.2f}, {slope:.2f}, {statistics.mean(banks):.2f})")
    fitted = print_rows("calibration (the sizes CONTROL_LUTS was fitted to)", calibration)
    held = print_rows("held out (sizes the fit never saw)", rows(HELD_OUT, cache))
    print(f"\nlargest LUT-eq error of the estimate: {100 * fitted:.1f}% on the calibration sizes, "
          f"{100 * held:.1f}% held out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
