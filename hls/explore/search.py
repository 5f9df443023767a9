"""The multi-objective search: pymoo's NSGA-II over one gene per site, seeded, evaluations cached in the store.

Objectives (both minimised by NSGA-II): the bound's metric (negated when higher is
better) and the estimated LUT equivalents; the bound is a constraint.  A site's
gene orders its choices by estimated cost, so that crossover and mutation move
between neighbouring units.  The first population holds exact arithmetic and
every *uniform* assignment (one candidate on every operation of its kind), the
rest is random.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["uniform_selections", "nsga2", "front", "finite"]

#: Stand-in for an infinite metric (PSNR of identical images) in the objectives.
_LARGE = 1e9


def finite(value: float) -> float:
    if math.isnan(value):
        return _LARGE
    return max(-_LARGE, min(_LARGE, value))


def uniform_selections(space) -> list[tuple[str, tuple]]:
    """``(label, selection)`` of exact and of each candidate of each kind on every operation of that kind
    (an operation whose widths do not allow it stays exact)."""
    result = [("exact", tuple(0 for _ in space.sites))]
    for kind, units in space.candidates.items():
        for unit in units:
            selection = tuple(site.units.index(unit) + 1 if site.operation.kind == kind and unit in site.units else 0
                              for site in space.sites)
            if any(selection):
                result.append((f"{kind}={unit.label}", selection))
    return result


def nsga2(space, evaluate, costs, *, evaluations: int, population: int, seed: int, progress=None):
    """Run NSGA-II for about ``evaluations`` evaluations (cached ones included) and return nothing:
    ``evaluate(selection) -> (objective, violation, lut)`` is called for each proposal and stores it.

    ``costs[site][choice]`` orders each site's genes.
    """
    # pymoo is the `explore` extra, and slow to import: only a search needs it.
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.core.problem import Problem
    from pymoo.operators.crossover.sbx import SBX
    from pymoo.operators.mutation.pm import PM
    # (pymoo, as above)
    from pymoo.operators.repair.rounding import RoundingRepair
    from pymoo.optimize import minimize

    orders = [sorted(range(len(row)), key=lambda choice, row=row: (row[choice], choice)) for row in costs]
    genes_of = [{choice: gene for gene, choice in enumerate(order)} for order in orders]
    upper = np.array([len(order) - 1 for order in orders], dtype=float)

    def selection_of(genes) -> tuple:
        return tuple(order[int(round(min(max(gene, 0), len(order) - 1)))] for gene, order in zip(genes, orders))

    class _Problem(Problem):
        def __init__(self):
            super().__init__(n_var=len(orders), n_obj=2, n_ieq_constr=1, xl=np.zeros(len(orders)), xu=upper,
                             vtype=int)

        def _evaluate(self, X, out, *args, **kwargs):
            F, G = [], []
            for genes in X:
                objective, violation, lut = evaluate(selection_of(genes))
                F.append([finite(objective), lut])
                G.append([finite(violation)])
            out["F"], out["G"] = np.array(F), np.array(G)

    rng = np.random.default_rng(seed)
    seeded = [[genes_of[site][choice] for site, choice in enumerate(selection)]
              for _, selection in uniform_selections(space)][:population]
    while len(seeded) < population:
        seeded.append([int(rng.integers(0, len(order))) for order in orders])
    algorithm = NSGA2(pop_size=population, sampling=np.array(seeded, dtype=float),
                      crossover=SBX(prob=0.9, eta=15, vtype=float, repair=RoundingRepair()),
                      mutation=PM(eta=20, vtype=float, repair=RoundingRepair()), eliminate_duplicates=True)
    minimize(_Problem(), algorithm, ("n_eval", evaluations), seed=seed, verbose=False)


def front(points: list[dict], cost=lambda point: point["lut_equivalents"]) -> list[dict]:
    """The non-dominated points (``objective`` and ``cost(point)``, by default the estimated LUT
    equivalents, minimised) among the feasible ones, by increasing cost."""
    feasible = sorted((p for p in points if p["feasible"]), key=lambda p: (cost(p), p["objective"], p["selection"]))
    result, best = [], math.inf
    for point in feasible:
        if point["objective"] < best:
            result.append(point)
            best = point["objective"]
    return result
