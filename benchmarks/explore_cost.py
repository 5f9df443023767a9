"""Issue 23's cost-model target: the estimated LUT-eq (:class:`hls.explore.cost.CostModel`) against the
whole-kernel synthesis (``synth_ecp5 -nodsp -nobram -nolutram -nowidelut``, LUT4 + 2 x CCU2C, the cells
``verify`` counts) of each application's uniform configurations and of random per-operation mixes.

    python benchmarks/explore_cost.py [--app image|ecg|tracking|gaussian ...] [--mixes 10] [--seed 1]
        [--mirror /path/to/evoapproxlib.git] [--json]

* ``image``, ``ecg``, ``tracking``: the applications of ``benchmarks/apps.py``, the explorer's default
  space (every ``*`` and ``//`` between variables, :data:`hls.explore.DEFAULT_CANDIDATES`).
* ``gaussian``: the 17-operation filter of ``benchmarks/explore_scale.py``, its space (9 ``*``, 8 ``+``
  among twelve adders) and, with ``--mirror``, its ten EvoApproxLib multipliers as candidates too.
* The points: exact, every uniform configuration, then ``--mixes`` assignments drawn at ``--seed``, each
  operation's choice uniform over its choices (exact included): the kind of point the explorer verifies.

Prints, per point, the estimate, the synthesised figure and the error in % of it, then the distribution
(:func:`hls.explore.cost.error_distribution`: share within 10 %, median and worst error) per application,
per kind of point and overall.  ``--json`` prints ``{"points": [...], "distribution": {...}}``: each point's
``estimate``, ``synthesised`` and ``lut_error_pct`` (the name ``ExploreResult.verify`` gives it), with the same
three per kernel; ``distribution`` is keyed ``overall``, ``APP``, ``APP uniform``/``APP mix`` and
``uniform``/``mix``.  Syntheses are cached (``$AXHLS_CACHE_DIR``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks.apps import APPS, app_module  # noqa: E402

APPLICATIONS = (*APPS, "gaussian")


def space_of(name: str, circuits: str | None):
    """The explorer's space of application ``name`` (``circuits``: a folder of ``--verilog`` candidates)."""
    from hls.explore.space import Space, parse_candidates, verilog_candidates
    app = app_module(name)
    if name == "gaussian":
        from benchmarks.explore_scale import ADDERS
        kinds, text = ("mul", "add"), f"add={ADDERS}"
    else:
        kinds, text = ("mul", "div"), None
    candidates = parse_candidates(text, kinds)
    if circuits is not None:
        for kind, units in verilog_candidates(circuits, kinds).items():
            candidates[kind] = candidates[kind] + units
    return Space(app.KERNELS, candidates)


def selections(space, mixes: int, seed: int) -> list[tuple[str, str, tuple]]:
    """``(kind of point, label, selection)``: the uniform configurations, then ``mixes`` random ones."""
    import numpy as np
    from hls.explore.search import uniform_selections
    points = [("uniform", label, selection) for label, selection in uniform_selections(space)]
    generator = np.random.default_rng(seed)
    for n in range(mixes):
        selection = tuple(int(generator.integers(size)) for size in space.sizes)
        points.append(("mix", f"mix {n + 1}: " + ",".join(str(i) for i in selection), selection))
    return points


def error_pct(estimate: float, synthesised: int) -> float:
    """The estimate's error in % of the synthesised figure."""
    return round(100 * (estimate - synthesised) / synthesised, 2)


def measure(name: str, *, mixes: int, seed: int, circuits: str | None = None) -> list[dict]:
    from approx_units.synth import ResultCache, synthesize_verilog
    from hls.compiler import compile_kernel
    from hls.explore.cost import CostModel
    space = space_of(name, circuits)
    cache = ResultCache()
    costs = CostModel(space, cache)
    rows = []
    for kind, label, selection in selections(space, mixes, seed):
        mapping = space.mapping(selection)
        estimates = costs.kernel_estimates(selection)
        kernels = {}
        for kernel in space.kernels:
            compiled = compile_kernel(kernel.with_approx(mapping[kernel.name]))
            synthesised = synthesize_verilog(compiled.verilog(), compiled.ir.name, "ecp5", timing=False,
                                             cache=cache).lut_equivalents
            kernels[kernel.name] = {"estimate": round(estimates[kernel.name], 1), "synthesised": synthesised,
                                    "lut_error_pct": error_pct(estimates[kernel.name], synthesised)}
        estimate = sum(k["estimate"] for k in kernels.values())
        synthesised = sum(k["synthesised"] for k in kernels.values())
        rows.append({"app": name, "kind": kind, "config": label, "selection": list(selection),
                     "estimate": round(estimate, 1), "synthesised": synthesised,
                     "lut_error_pct": error_pct(estimate, synthesised), "kernels": kernels})
    return rows


def summaries(rows: list[dict]) -> dict:
    """The error distribution of ``rows`` per application, per kind of point, and overall."""
    from hls.explore.cost import error_distribution
    groups = {"overall": rows}
    for row in rows:
        groups.setdefault(row["app"], [])
        groups.setdefault(f"{row['app']} {row['kind']}", [])
        groups.setdefault(row["kind"], [])
    for row in rows:
        for key in (row["app"], f"{row['app']} {row['kind']}", row["kind"]):
            groups[key].append(row)
    return {key: error_distribution([row["lut_error_pct"] for row in members]) for key, members in groups.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", action="append", choices=APPLICATIONS)
    parser.add_argument("--mixes", type=int, default=10, help="random per-operation assignments per application")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mirror", help="a git mirror of ehw-fit/evoapproxlib: its multipliers join gaussian's")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.mixes < 0:
        parser.error(f"--mixes {args.mixes}: expected a number >= 0")
    rows = []
    with tempfile.TemporaryDirectory(prefix="explore-cost-") as scratch:
        for name in args.app or APPLICATIONS:
            circuits = None
            if name == "gaussian" and args.mirror:
                from benchmarks.explore_scale import extract
                extract(args.mirror, Path(scratch))
                circuits = scratch
            rows.extend(measure(name, mixes=args.mixes, seed=args.seed, circuits=circuits))
    summary = summaries(rows)
    if args.json:
        print(json.dumps({"points": rows, "distribution": summary}, indent=1, sort_keys=True))
        return 0
    for row in rows:
        print(f"{row['app']:9s} {row['config'][:44]:44s} estimate {row['estimate']:8.0f}  synthesised "
              f"{row['synthesised']:6d}  error {row['lut_error_pct']:+7.2f} %")
    print("distribution of the error (% of the synthesised LUT-eq):")
    for key, value in summary.items():
        print(f"  {key:18s} {value['within_10pct']:3d}/{value['points']:<3d} within 10 % "
              f"({100 * value['share_within_10pct']:5.1f} %)  median {value['median_pct']:+6.2f} %  "
              f"median |error| {value['median_abs_pct']:5.2f} %  worst {value['worst_pct']:+7.2f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
