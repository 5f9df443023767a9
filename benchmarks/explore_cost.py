"""Issue 23's cost-model target: the estimated LUT-eq (:class:`hls.explore.cost.CostModel`) against the
whole-kernel synthesis (``synth_ecp5 -nodsp -nobram -nolutram -nowidelut``, LUT4 + 2 x CCU2C, the cells
``verify`` counts) of each uniform configuration of each application.

    python benchmarks/explore_cost.py [--app image|ecg|tracking ...] [--json]

Prints, per point, the estimate, the synthesised figure and the error in %, then the fraction within
10 %.  Syntheses are cached (``$AXHLS_CACHE_DIR``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks.apps import APPS, app_module  # noqa: E402


def measure(name: str) -> list[dict]:
    from approx_units.synth import ResultCache, synthesize_verilog
    from hls.compiler import compile_kernel
    from hls.explore.cost import CostModel
    from hls.explore.search import uniform_selections
    from hls.explore.space import Space, parse_candidates
    app = app_module(name)
    cache = ResultCache()
    space = Space(app.KERNELS, parse_candidates(None))
    costs = CostModel(space, cache)
    rows = []
    for label, selection in uniform_selections(space):
        mapping = space.mapping(selection)
        synthesised = 0
        for kernel in space.kernels:
            compiled = compile_kernel(kernel.with_approx(mapping[kernel.name]))
            synthesised += synthesize_verilog(compiled.verilog(), compiled.ir.name, "ecp5", timing=False,
                                              cache=cache).lut_equivalents
        estimate = costs.estimate(selection)
        rows.append({"app": name, "config": label, "estimate": estimate, "synthesised": synthesised,
                     "error_pct": round(100 * (estimate - synthesised) / synthesised, 2)})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", action="append", choices=APPS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [row for name in args.app or APPS for row in measure(name)]
    within = sum(abs(row["error_pct"]) <= 10 for row in rows)
    if args.json:
        print(json.dumps({"points": rows, "within_10pct": within, "total": len(rows)}))
        return 0
    for row in rows:
        print(f"{row['app']:9s} {row['config']:42s} estimate {row['estimate']:8.0f}  synthesised "
              f"{row['synthesised']:6d}  error {row['error_pct']:+7.2f} %")
    print(f"within 10 %: {within}/{len(rows)} ({100 * within / max(1, len(rows)):.0f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
