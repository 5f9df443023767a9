"""``hls.explore`` on the three applications of ``examples/apps/``: the explorer's cheapest point inside each
application's quality bound against the best uniform configuration, both by the cost estimate.

    python benchmarks/explore_apps.py [--app image|ecg|tracking ...] [--evaluations 200] [--population 20]
                                      [--seed 1] [--store DIR] [--json]

The bounds are those of issue 12 (``benchmarks/apps.py``): image PSNR >= 35 dB, ECG F1 >= 0.99, tracking
RMSE against the true path at most 5 % above exact's
(``rmse_increase_pct<=5``).  The uniform configurations are exact and each
default candidate on every operation of its kind (:func:`hls.explore.search.uniform_selections`).  The
figures are estimates (units synthesised alone plus each kernel's exact remainder); they are not verified
by whole-kernel synthesis here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks.apps import APPS, app_module  # noqa: E402


def bound_of(name: str, app) -> str:
    """The bound of application ``name`` as the explorer takes it (issue 12's targets)."""
    if name == "image":
        return f"psnr_db>={app.PSNR_TARGET_DB:g}"
    if name == "ecg":
        return f"f1>={app.F1_TARGET:g}"
    return f"rmse_increase_pct<={app.RMSE_INCREASE_TARGET_PCT:g}"


def measure(name: str, *, evaluations: int, population: int, seed: int, store: str | None) -> dict:
    import hls.explore as explore
    app = app_module(name)
    bound = bound_of(name, app)
    began = time.perf_counter()
    result = explore.explore(app.KERNELS, app.default_input(), app.quality, run=app.run, bound=bound,
                             evaluations=evaluations, population=population, seed=seed,
                             store=os.path.join(store, f"{name}.sqlite") if store else None)
    seconds = time.perf_counter() - began
    feasible_uniform = [p for p in result.uniform if p["feasible"]]
    best_uniform = min(feasible_uniform, key=lambda p: p["lut_equivalents"])
    best = result.front[0] if result.front else None
    row = {"app": name, "bound": bound, "sites": len(result.space.sites), "assignments": result.space.size,
           "evaluations": len(result.points), "seconds": round(seconds, 1),
           "exact_lut_equivalents": result.costs.estimate([0] * len(result.space.sites)),
           "best_uniform": {"label": best_uniform["label"], "quality": best_uniform["quality"],
                            "lut_equivalents": best_uniform["lut_equivalents"]},
           "front_points": len(result.front)}
    if best is not None:
        row["explorer"] = {"quality": best["quality"], "lut_equivalents": best["lut_equivalents"],
                           "assignment": {r["key"]: r["unit"] + (str(r["params"]) if r["params"] else "")
                                          for r in result.assignment(best) if r["unit"] != "exact"}}
        row["lut_below_best_uniform_pct"] = round(100 * (1 - best["lut_equivalents"] / best_uniform["lut_equivalents"]), 2)
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", action="append", choices=APPS)
    parser.add_argument("--evaluations", type=int, default=200)
    parser.add_argument("--population", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--store", metavar="DIR", help="keep each application's evaluations in DIR/APP.sqlite")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [measure(name, evaluations=args.evaluations, population=args.population, seed=args.seed,
                    store=args.store) for name in args.app or APPS]
    if args.json:
        print(json.dumps(rows))
    else:
        for row in rows:
            print(json.dumps(row, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
