"""Search quality of ``hls.explore`` (issue 23): the explorer's front against the exhaustive one.

    python benchmarks/explore_search.py [--json] [--budget 0.05] [--seed 1]

The kernel (:func:`fir8`) is an 8-tap FIR filter whose eight ``*`` are between variables
(taps as scalar arguments); each chooses exact or one of ``drum(k=3)``, ``drum(k=4)``,
``mitchell``: 4^8 = 65,536 assignments.  Every one is evaluated by the switched compiled
model (quality: mean absolute error against the exact output, bound ``mae<=BOUND``) and
the cost model (estimated LUT equivalents), giving the exhaustive front.  Then
:func:`hls.explore.explore` runs with at most ``--budget`` of the evaluations (default
5 %), and the script prints both fronts' hypervolumes, normalised: quality axis
``mae / BOUND``, cost axis ``LUT-eq / (2 x exact)``, reference point (1, 1) (NOTES.md,
"Exploring approximations").

Target (issue 23): the explorer's hypervolume is at least 98 % of the exhaustive front's
with at most 5 % of the evaluations.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402
from amaranth import signed, unsigned  # noqa: E402

import hls  # noqa: E402
import hls.explore as explore  # noqa: E402

N = 64
BOUND = 1000.0      #: mean absolute error allowed (the output is about 2^15 on average)
CANDIDATES = "mul=drum(k=3),drum(k=4),mitchell"


@hls.kernel
def fir8(x: hls.Array[unsigned(8), N], y: hls.Array[unsigned(19), N], c0: unsigned(8), c1: unsigned(8),
         c2: unsigned(8), c3: unsigned(8), c4: unsigned(8), c5: unsigned(8), c6: unsigned(8), c7: unsigned(8)):
    for i in range(N - 7):
        acc: unsigned(19) = (c0 * x[i] + c1 * x[i + 1] + c2 * x[i + 2] + c3 * x[i + 3]
                             + c4 * x[i + 4] + c5 * x[i + 5] + c6 * x[i + 6] + c7 * x[i + 7])
        y[i] = acc


def data() -> list[dict]:
    """Four blocks of a noisy sine, with a low-pass filter's taps."""
    rng = np.random.default_rng(3)
    taps = [9, 22, 41, 56, 56, 41, 22, 9]
    blocks = []
    for block in range(4):
        t = np.arange(N) + block * N
        signal = 128 + 90 * np.sin(t / 5.0) + rng.normal(0, 12, N)
        x = np.clip(np.rint(signal), 0, 255).astype(int).tolist()
        blocks.append({"x": x, "y": [0] * N, **{f"c{k}": taps[k] for k in range(8)}})
    return blocks


def quality(reference, output, data) -> dict:
    """Mean absolute error of ``y`` against the exact run's."""
    errors = [abs(a - b) for ref, out in zip(reference, output) for a, b in zip(ref["y"], out["y"])]
    return {"mae": float(np.mean(errors))}


def hypervolume(points, exact_lut: float) -> float:
    """Normalised hypervolume of (mae, LUT-eq) points below the reference (BOUND, 2 x exact)."""
    from pymoo.indicators.hv import HV
    F = np.array([[p[0] / BOUND, p[1] / (2 * exact_lut)] for p in points if p[0] <= BOUND])
    return float(HV(ref_point=np.array([1.0, 1.0]))(F)) if len(F) else 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--budget", type=float, default=0.05, help="fraction of the assignments (default 0.05)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    bound = f"mae<={BOUND:g}"
    candidates = explore.parse_candidates(CANDIDATES, kinds=("mul",))
    space = explore.Space([fir8], candidates)
    inputs = data()
    qualities = explore.quality.QualityModel(space, inputs, quality)
    from approx_units.synth import ResultCache
    costs = explore.cost.CostModel(space, ResultCache())
    exact_lut = costs.estimate([0] * len(space.sites))

    began = time.perf_counter()
    exhaustive = []
    for selection in itertools.product(*(range(n) for n in space.sizes)):
        exhaustive.append((qualities.metrics(selection)["mae"], costs.estimate(selection)))
    exhaustive_seconds = time.perf_counter() - began
    exhaustive_front = explore.search.front([{"selection": (), "objective": q, "lut_equivalents": c,
                                              "feasible": q <= BOUND} for q, c in exhaustive])

    evaluations = int(args.budget * space.size)
    began = time.perf_counter()
    result = explore.explore(fir8, inputs, quality, bound=bound, candidates=candidates,
                             evaluations=evaluations, population=40, seed=args.seed)
    search_seconds = time.perf_counter() - began
    found = [(p["quality"], p["lut_equivalents"]) for p in result.front]
    reference_hv = hypervolume([(p["objective"], p["lut_equivalents"]) for p in exhaustive_front], exact_lut)
    found_hv = hypervolume(found, exact_lut)
    report = {"assignments": space.size, "sites": len(space.sites), "exhaustive_seconds": round(exhaustive_seconds, 2),
              "evaluations_per_second": round(space.size / exhaustive_seconds, 1),
              "explorer_evaluations": len(result.points), "budget": evaluations,
              "explorer_fraction": round(len(result.points) / space.size, 4),
              "search_seconds": round(search_seconds, 2),
              "exhaustive_front_points": len(exhaustive_front), "explorer_front_points": len(result.front),
              "exhaustive_hypervolume": round(reference_hv, 6), "explorer_hypervolume": round(found_hv, 6),
              "ratio": round(found_hv / reference_hv, 4) if reference_hv else None,
              "target": "ratio >= 0.98 with explorer_fraction <= 0.05", "exact_lut_equivalents": exact_lut}
    report["meets_target"] = bool(report["ratio"] is not None and report["ratio"] >= 0.98
                                  and report["explorer_fraction"] <= 0.05)
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
