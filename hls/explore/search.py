"""The multi-objective search: pymoo's NSGA-II over one gene per site, seeded, evaluations cached in the store.

Objectives (both minimised by NSGA-II): the bound's metric (negated when higher is
better) and the estimated LUT equivalents; the bound is a constraint.  A site's
gene orders its choices by estimated cost, so that crossover and mutation move
between neighbouring units.  The first population holds exact arithmetic and
every *uniform* assignment (one candidate on every operation of its kind), the
rest is random.

Each generation's proposals are one batch: :class:`LocalEvaluator` runs them in this
process, :class:`DaskEvaluator` splits them over the workers of a Dask ``distributed``
cluster (``scheduler=``), each worker building the compiled models once.  Either way a
batch's metrics come back in proposal order, so the search, the store and the front do
not depend on where the runs were made.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from .quality import QualityModel
from .space import ExploreError, Space

__all__ = ["uniform_selections", "nsga2", "front", "finite", "FrontTracker", "LocalEvaluator", "DaskEvaluator",
           "connect"]

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


def nsga2(space, evaluate, costs, *, evaluations: int, population: int, seed: int):
    """Run NSGA-II for about ``evaluations`` evaluations (cached ones included) and return nothing:
    ``evaluate([selection, ...]) -> [(objective, violation, lut), ...]`` is called for each
    generation's proposals (a batch, which :class:`DaskEvaluator` spreads over a cluster) and stores them.

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
            for objective, violation, lut in evaluate([selection_of(genes) for genes in X]):
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


class FrontTracker:
    """The best-so-far front, kept as points arrive (what the progress bar shows).

    Attributes
    ----------
    points : list of dict
        The feasible points non-dominated so far (``objective`` and ``cost``, the estimated LUT
        equivalents or ADP, minimised), by increasing cost.
    """

    def __init__(self):
        self.points: list[dict] = []

    def add(self, point: dict) -> None:
        if not point["feasible"]:
            return
        cost, objective = point["cost"], point["objective"]
        if any(p["cost"] <= cost and p["objective"] <= objective for p in self.points):
            return                                                   # dominated, or equal to one kept
        self.points = sorted([p for p in self.points if not (cost <= p["cost"] and objective <= p["objective"])]
                             + [point], key=lambda p: (p["cost"], p["objective"]))

    def summary(self) -> dict:
        """``front`` (its size), ``best`` (the best quality within the bound) and ``cost`` (the lowest)."""
        if not self.points:
            return {"front": 0}
        return {"front": len(self.points), "best": f"{min(self.points, key=lambda p: p['objective'])['quality']:.4g}",
                "cost": f"{self.points[0]['cost']:.4g}"}


class LocalEvaluator:
    """A batch's metrics from ``qualities`` (a :class:`hls.explore.quality.QualityModel`) in this process."""

    def __init__(self, qualities):
        self.qualities = qualities

    def metrics(self, selections) -> list[dict]:
        return [self.qualities.metrics(selection) for selection in selections]

    def close(self) -> None:
        pass


def connect(address: str, timeout: float = 5.0):
    """A ``distributed.Client`` of the Dask scheduler at ``address`` (``tcp://host:8786``).

    Raises
    ------
    ExploreError
        ``distributed`` is not installed, or the scheduler cannot be reached within ``timeout`` s.
    """
    try:
        from distributed import Client     # optional (the `sweep` extra) and only for scheduler=
    except ModuleNotFoundError:
        raise ExploreError("--scheduler needs the 'distributed' package: pip install 'axhls[sweep]'") from None
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ExploreError(f"--scheduler {address}: cannot connect to the Dask scheduler ({detail})") from None


#: A worker's quality models, by job token and thread (a model's runs share its buffers): built at a
#: job's first batch, reused by the next ones.
_WORKER_MODELS: dict = {}


def _worker_metrics(token: str, job: tuple, selections: list) -> list[dict]:
    """On a Dask worker: the metrics of ``selections`` under the job's quality model."""
    key = (token, threading.get_ident())
    if key not in _WORKER_MODELS:
        kernels, units, data, quality, run, names = job
        _WORKER_MODELS[key] = QualityModel(Space(kernels, units), data, quality, run, names=names)
    return [_WORKER_MODELS[key].metrics(selection) for selection in selections]


class DaskEvaluator:
    """A batch's metrics from the workers of a Dask cluster: the batch is split into one chunk per worker
    thread (in order), and the chunks' metrics gathered in order.

    Parameters
    ----------
    client : distributed.Client
    job : tuple
        ``(kernels, units, data, quality, run, names)``: what each worker builds its
        :class:`~hls.explore.quality.QualityModel` from (sent once, by cloudpickle, as ``distributed``
        sends any task; kernels defined in a module travel by value).  A circuit's file
        (``--verilog``) is read by each worker at its path.
    token : str
        Names the job's models on the workers (the space's digest).

    Raises
    ------
    ExploreError
        From a worker (a run or quality function that raises), as it would be here.
    """

    def __init__(self, client, job: tuple, token: str):
        self.client, self.token = client, token
        (self.job,) = client.scatter([job], broadcast=True, hash=False)
        threads = client.nthreads()
        self.slots = max(1, sum(threads.values()))

    def metrics(self, selections) -> list[dict]:
        selections = [tuple(selection) for selection in selections]
        if not selections:
            return []
        size = -(-len(selections) // self.slots)
        chunks = [selections[start:start + size] for start in range(0, len(selections), size)]
        futures = [self.client.submit(_worker_metrics, self.token, self.job, chunk, pure=False) for chunk in chunks]
        try:
            results = self.client.gather(futures)
        finally:
            for future in futures:
                future.release()
        return [metrics for chunk in results for metrics in chunk]

    def close(self) -> None:
        self.job.release()
