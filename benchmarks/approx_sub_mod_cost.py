"""What an approximate ``-`` and ``%`` cost beside ``+`` and ``//`` with the same unit (issue 23).

    python benchmarks/approx_sub_mod_cost.py

``-`` is built on an adder unit (``~(~a + b)``) and ``%`` on a divider unit (``a - q*b``, floored):
for each operand shape pair and unit (and exact), it synthesises the explorer's probe of the operation
(``hls.explore.cost.probe_kernel``: ``o[i] = x OP y`` in a pipelined loop, the cost model's flow,
``synth_ecp5 -nodsp -nowidelut``) less its base (``o[i] = x``), and prints the LUT equivalents (LUT4 +
2 x CCU2C) of ``+`` and ``-``, and of ``//`` and ``%``, side by side.  Syntheses are cached
(``$AXHLS_CACHE_DIR``).
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: (the kind, the kind beside it, the units as --candidates takes them).
PAIRS = (("add", "sub", "loa(l=2),loa(l=4),trunc_add(l=4),eta1(l=3),hoaaned(l=3)"), ("div", "mod", "mitchell_div,aaxd(k=4)"))


def measure(shapes) -> list[dict]:
    import hls
    from approx_units.synth import ResultCache, synthesize_verilog
    from hls.explore.cost import Context, probe_kernel
    from hls.explore.space import parse_candidates
    cache = ResultCache()
    target = hls.Target()

    def luts(compiled) -> float:
        return synthesize_verilog(compiled.verilog(), compiled.ir.name, "ecp5", timing=False,
                                  cache=cache).lut_equivalents

    rows = []
    for a, b in shapes:
        for first, second, units in PAIRS:
            candidates = parse_candidates(f"{first}={units};{second}={units}", [first, second])
            for index in range(len(candidates[first]) + 1):
                row = {"operands": f"{a} {b}", "unit": "exact" if index == 0 else candidates[first][index - 1].label}
                for kind in (first, second):
                    context = Context.plain(kind, a, b)
                    unit = None if index == 0 else candidates[kind][index - 1]
                    base = luts(probe_kernel(None, context, target, result_kind=kind))
                    row[kind] = luts(probe_kernel(kind, context, target, unit)) - base
                rows.append(row)
    return rows


def main(argv=None) -> int:
    from amaranth.hdl import signed, unsigned
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    shapes = [(unsigned(8), unsigned(8)), (signed(16), signed(16))]
    print(f"{'operands':28s} {'unit':16s} {'+':>6s} {'-':>6s} {'//':>6s} {'%':>6s}   (LUT-eq of the probe less its base)")
    for row in measure(shapes):
        cells = "".join(f" {row[kind]:6.0f}" if kind in row else f" {'':6s}" for kind in ("add", "sub", "div", "mod"))
        print(f"{row['operands']:28s} {row['unit']:16s}{cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
