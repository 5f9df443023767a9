"""Accuracy targets of the refined Mitchell units (issue 2, Targets), measured on the bit-exact models.

Prints the MRED of plain and refined Mitchell multipliers and dividers at 8
bits (exhaustive, all 2**16 pairs) and 16 and 32 bits (uniform random
samples), against the targets: refined multiplier <= 0.6 % (RAPID reports
99.4 % accuracy), refined divider <= 0.8 % (SIMDive); plain Mitchell is about
3.8 % (multiplier) and 4 % (divider). Dividers are measured against the
real-valued quotient a / b (division by zero excluded), with the default
quotient format (n fraction bits). Also prints how the refined multiplier's
MRED depends on its two parameters and how the divider's falls with the size
of its correction table: that is how the defaults (``mantissa_bits=7``,
``index_bits=4``; divider ``index_bits=4``) were chosen.

Usage: python benchmarks/units_accuracy.py [--samples N] [--seed S]
Exit status 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import approx_units                                    # noqa: E402
from approx_units.metrics import ErrorStats            # noqa: E402

TARGETS = {"mitchell_refined": 0.006, "mitchell_div_refined": 0.008}
LITERATURE = {"mitchell": 0.038, "mitchell_div": 0.04}


def operands(width: int, samples: int, seed: int):
    if width <= 8:
        a, b = np.meshgrid(np.arange(1 << width, dtype=np.uint64), np.arange(1 << width, dtype=np.uint64))
        return a.ravel(), b.ravel(), True
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 1 << width, samples, dtype=np.uint64),
            rng.integers(0, 1 << width, samples, dtype=np.uint64), False)


def measure(unit, a, b, chunk=1 << 18) -> ErrorStats:
    stats = ErrorStats()
    for start in range(0, a.size, chunk):
        x, y = a[start:start + chunk], b[start:start + chunk]
        approx = unit.model(x, y)
        if unit.kind == "mul":
            stats = stats + ErrorStats.of(x * y, approx)
        else:
            stats = stats + ErrorStats.of_quotient(x, y, approx, frac_bits=unit.params["frac_bits"])
    return stats


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000,
                        help="random pairs at 16 and 32 bits (default 1e6)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    if args.samples < 1000:
        parser.error(f"--samples must be at least 1000, not {args.samples}")

    missed = []
    print(f"{'unit':<22}{'width':>6}{'pairs':>12}  {'MRED %':>8}  {'WCRE %':>8}  {'target':>10}  seconds")
    for width in (8, 16, 32):
        a, b, exhaustive = operands(width, args.samples, args.seed + width)
        for name in ("mitchell", "mitchell_refined", "mitchell_div", "mitchell_div_refined"):
            unit = approx_units.get(name, width=width)
            started = time.perf_counter()
            stats = measure(unit, a, b)
            seconds = time.perf_counter() - started
            if name in TARGETS:
                ok = stats.mred <= TARGETS[name]
                target = f"<= {100 * TARGETS[name]:.1f} {'ok' if ok else 'MISSED'}"
                if not ok:
                    missed.append(f"{name} at {width} bits")
            else:
                target = f"~{100 * LITERATURE[name]:.1f} (lit.)"
            pairs = f"{a.size}{' all' if exhaustive else ''}"
            print(f"{name:<22}{width:>6}{pairs:>12}  {100 * stats.mred:8.3f}  "
                  f"{100 * stats.max_rel:8.3f}  {target:>10}  {seconds:7.2f}")

    a, b, _ = operands(16, min(args.samples, 200_000), args.seed)
    print("\nRefined multiplier, 16 bits: MRED % against the fraction bits kept (mantissa_bits, t)")
    print("and the region bits of the error term (index_bits, q; a (q+1) x (q+1)-bit product):")
    print(f"{'t/q':>8}" + "".join(f"{q:>8}" for q in range(2, 7)))
    for t in range(5, 10):
        row = [measure(approx_units.get("mitchell_refined", width=16, mantissa_bits=t, index_bits=q), a, b).mred
               if q <= t else None for q in range(2, 7)]
        print(f"{t:>8}" + "".join(f"{100 * m:>8.3f}" if m is not None else f"{'-':>8}" for m in row))

    print("\nRefined divider, 16 bits: MRED % against correction-table size (index bits per operand; entries = 4**bits):")
    print(f"{'index_bits':>10}{'entries':>9}{'divider':>10}")
    for bits in range(1, 7):
        div = measure(approx_units.get("mitchell_div_refined", width=16, index_bits=bits), a, b).mred
        print(f"{bits:>10}{4 ** bits:>9}{100 * div:>10.3f}")

    if missed:
        print(f"\ntargets missed: {', '.join(missed)}")
        return 1
    print("\nall targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
