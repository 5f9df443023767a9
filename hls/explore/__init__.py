"""Design-space exploration: choose the approximate unit of each operation of a kernel or chain.

    result = hls.explore.explore(image.KERNELS, image.default_input(), image.quality, run=image.run,
                                 bound="psnr_db>=35", evaluations=400, seed=1, store="image.sqlite")
    result.front            # the estimated Pareto front (quality against LUT equivalents)
    result.approx(0)        # {kernel: approx= mapping} of its cheapest point

* The space (:mod:`hls.explore.space`): one choice per ``*`` / ``//`` (and ``+`` with
  ``kinds=``) between non-constant operands, keyed ``FILE:LINE:COL``; exact or a candidate unit.
* Quality (:mod:`hls.explore.quality`): the compiled golden model with every candidate
  inlined and chosen per run, so no assignment compiles anything.
* Cost (:mod:`hls.explore.cost`): units synthesised alone at the operands' widths, plus
  each kernel's exact remainder.
* Search (:mod:`hls.explore.search`): NSGA-II, seeded, every evaluation kept in an SQLite
  store (:mod:`hls.explore.store`), so a re-run or a resumed run skips them.

``docs/explore.md`` has the calling conventions and the image application end to end.
"""

from __future__ import annotations

import statistics
import time

from approx_units import progress as progress_bars
from approx_units.synth import ResultCache, synthesize_kernel_seeds

from ..compiler import compile_kernel
from .cost import CostModel
from .quality import Bound, QualityModel, parse_bound
from .search import DaskEvaluator, FrontTracker, LocalEvaluator, connect, finite, front, nsga2, uniform_selections
from .space import DEFAULT_CANDIDATES, DEFAULT_KINDS, ExploreError, Space, parse_candidates, verilog_candidates
from .store import EvaluationStore

__all__ = ["explore", "ExploreResult", "ExploreError", "Space", "parse_candidates", "verilog_candidates",
           "parse_bound", "Bound",
           "DEFAULT_CANDIDATES", "DEFAULT_KINDS"]


class ExploreResult:
    """What :func:`explore` found.

    Attributes
    ----------
    space : Space
    bound : Bound
    points : list of dict
        Every evaluated assignment (``selection``, ``metrics``, ``quality``, ``objective``,
        ``violation``, ``feasible``, ``lut_equivalents``), in selection order.
    front : list of dict
        The feasible non-dominated points, by increasing estimated LUT equivalents.
    uniform : list of dict
        Exact and each uniform assignment (``label`` added).
    costs : CostModel
    evaluated, cached : int
        Evaluations run in this call, and proposals answered from the store.
    timings : dict of str to float
        Seconds of this call's phases: ``compile_s`` (the compiled models and the exact
        run), ``cost_model_s`` (unit and kernel synthesis, or the cache), ``search_s``
        (the evaluations).  Not in :meth:`to_json`, which stays byte-identical between runs.
    """

    def __init__(self, space, bound, points, uniform, costs, evaluated, cached):
        self.space, self.bound, self.points, self.uniform, self.costs = space, bound, points, uniform, costs
        self.front = front(points)
        self.evaluated, self.cached = evaluated, cached
        self.timings: dict[str, float] = {}

    def assignment(self, point: dict) -> list[dict]:
        """Each site of ``point``: kernel, key, line, text and the unit chosen (``exact`` or a label)."""
        rows = []
        for site, index in zip(self.space.sites, point["selection"]):
            unit = site.units[index - 1] if index else None
            rows.append({"kernel": site.kernel, "key": site.key, "line": site.operation.lineno,
                         "text": site.operation.text, "kind": site.operation.kind,
                         "unit": unit.unit if unit else "exact", "params": dict(unit.params) if unit else {}})
        return rows

    def approx(self, n: int) -> dict[str, dict]:
        """``{kernel: {key: [unit, {params}]}}`` of front point ``n``: what ``@hls.kernel(approx=...)``
        and ``axhls ... --approx @FILE.json`` accept.

        Raises
        ------
        ExploreError
            ``n`` outside the front.
        """
        if not 0 <= n < len(self.front):
            raise ExploreError(f"--apply {n}: the front has {len(self.front)} points (0..{len(self.front) - 1})")
        mapping = self.space.mapping(self.front[n]["selection"])
        return {kernel: {key: [unit.unit, dict(unit.params)] for key, unit in units.items()}
                for kernel, units in mapping.items()}

    def verify(self, count: int, *, seeds=(1, 2, 3), cache=None, progress=None) -> list[dict]:
        """Synthesise, place and route the first ``count`` front points whole (every kernel with its
        ``approx=`` mapping; Fmax the median over ``seeds``), and add ``verified`` to each: the measured
        LUT equivalents, FFs and Fmax (the slowest kernel's), and the estimate's error in %.

        ``progress(text)`` is called before each kernel. Cycles (and so ADP) are not measured here.
        """
        verified = []
        for n, point in enumerate(self.front[:count]):
            mapping = self.space.mapping(point["selection"])
            kernels = []
            for kernel in self.space.kernels:
                if progress is not None:
                    progress(f"verify front point {n}: {kernel.name}")
                compiled = compile_kernel(kernel.with_approx(mapping[kernel.name]))
                placed = synthesize_kernel_seeds(compiled.verilog(), compiled.ir.name, clock_mhz=kernel.clock_mhz,
                                                 seeds=tuple(seeds), cache=cache)
                kernels.append({"kernel": kernel.name, "lut_equivalents": placed[0].lut_equivalents,
                                "ffs": placed[0].ffs, "fmax_mhz": statistics.median(p.fmax_mhz for p in placed),
                                "fmax_mhz_seeds": [p.fmax_mhz for p in placed]})
            measured = sum(k["lut_equivalents"] for k in kernels)
            point["verified"] = {"lut_equivalents": measured, "ffs": sum(k["ffs"] for k in kernels),
                                 "fmax_mhz": min(k["fmax_mhz"] for k in kernels),
                                 "estimate_error_pct": round(100 * (point["lut_equivalents"] - measured) / measured, 2),
                                 "kernels": kernels}
            verified.append(point)
        return verified

    def _row(self, point: dict) -> dict:
        return {"selection": list(point["selection"]), "quality": point["metrics"],
                "lut_equivalents_estimate": point["lut_equivalents"], "feasible": point["feasible"],
                "assignment": self.assignment(point), **({"label": point["label"]} if "label" in point else {}),
                **({"verified": point["verified"]} if "verified" in point else {})}

    def to_json(self) -> dict:
        return {"bound": str(self.bound), "space": {"sites": self.space.to_json(), "size": self.space.size},
                "exact": self.costs.exact, "remainders": self.costs.remainders,
                "evaluations": len(self.points), "evaluated_now": self.evaluated, "from_store": self.cached,
                "front": [self._row(point) for point in self.front],
                "uniform": [self._row(point) for point in self.uniform]}


def explore(kernels, data, quality, *, bound, run=None, candidates=None, kinds=DEFAULT_KINDS, verilog=None,
            evaluations: int = 400, population: int = 40, seed: int = 1, store=None, cache=None, scheduler=None,
            progress: bool | None = False, names=("data", "quality", "run")) -> ExploreResult:
    """Search the per-operation assignments of ``kernels`` for the front of quality against LUT equivalents.

    Parameters
    ----------
    kernels : hls.Kernel or sequence of hls.Kernel
        One kernel, or a chain's kernels (then ``run`` is required).
    data, quality, run
        See :mod:`hls.explore.quality`.
    bound : str or Bound
        ``"psnr_db>=35"``: the constraint, and the metric optimised.
    candidates : str or dict, optional
        :func:`parse_candidates` text or ``{kind: [UnitChoice]}``; default :data:`DEFAULT_CANDIDATES`.
    kinds : sequence of str
        The kinds of operation searched (default ``mul`` and ``div``).
    verilog : path-like, optional
        A folder of third-party circuits (``FILE.v`` defining module ``FILE``, as
        ``axhls units survey`` reads them): each is one more candidate of its kind
        (:func:`verilog_candidates`), for the operations whose operands fit its ports.
    evaluations, population, seed : int
        NSGA-II's budget (proposals, the store's answers included), population and seed.
    store : path-like, optional
        The SQLite file of evaluations (resumable); in memory if ``None``.
    cache : approx_units.synth.ResultCache, optional
        Synthesis results (the default cache if ``None``).
    scheduler : str or distributed.Client, optional
        Run each generation's quality runs on this Dask cluster (``"tcp://host:8786"``, or a
        client, say of a ``LocalCluster``): :class:`~hls.explore.search.DaskEvaluator`.  The
        front is the same as without.
    progress : bool or None
        A tqdm bar on stderr (:func:`approx_units.progress.bar`; ``None``: when stderr is a
        terminal): the synthesis step of the cost model, then the evaluations with the
        best-so-far front's size (``front``), its best quality (``best``) and lowest LUT
        equivalents (``lut``).

    Raises
    ------
    ExploreError
        One line: bad candidates, bound or data; no approximable operation; a run or
        quality function that raises; a bound naming a metric ``quality`` does not return.
    """
    if not isinstance(kernels, (list, tuple)):
        kernels = (kernels,)
    bound = bound if isinstance(bound, Bound) else parse_bound(bound)
    if isinstance(candidates, dict):
        units = {kind: list(value) for kind, value in candidates.items()}
    else:
        units = parse_candidates(candidates, kinds)
    if verilog is not None:
        for kind, circuits in verilog_candidates(verilog, tuple(units)).items():
            units[kind] = units[kind] + circuits
    for name, value, low in (("evaluations", evaluations, 1), ("population", population, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ExploreError(f"{name} must be an integer >= {low}, not {value!r}")
    # The scheduler is reached before any work; a client given is the caller's to close.
    client = (connect(scheduler) if isinstance(scheduler, str) else scheduler) if scheduler is not None else None
    bar = None
    try:
        started = time.perf_counter()
        space = Space(kernels, units)
        qualities = QualityModel(space, data, quality, run, names=names)
        reference = qualities.metrics([0] * len(space.sites))
        qualities.check_metric(reference, bound.metric)
        timings = {"compile_s": time.perf_counter() - started}
        bar = progress_bars.bar(evaluations, unit="eval", description="explore", enabled=progress)
        say = bar.set_description_str if not bar.disable else None
        started = time.perf_counter()
        costs = CostModel(space, cache if cache is not None else ResultCache(), progress=say)
        timings["cost_model_s"] = time.perf_counter() - started
        evaluations_store = EvaluationStore(store, space.digest())
        if client is None:
            evaluator = LocalEvaluator(qualities)
        else:
            evaluator = DaskEvaluator(client, (space.kernels, units, data, quality, run, names), space.digest())
        seen: dict[tuple, dict] = {}
        counts = {"evaluated": 0, "cached": 0}
        tracker = FrontTracker()

        def points_of(selections) -> list[dict]:
            selections = [tuple(int(i) for i in selection) for selection in selections]
            new = [selection for selection in dict.fromkeys(selections) if selection not in seen]
            stored = {selection: evaluations_store.get(selection) for selection in new}
            pending = [selection for selection in new if stored[selection] is None]
            computed = dict(zip(pending, evaluator.metrics(pending)))
            for selection in new:
                if selection in computed:
                    metrics = computed[selection]
                    qualities.check_metric(metrics, bound.metric)
                    lut = costs.estimate(selection)
                    evaluations_store.put(selection, metrics, lut)
                    counts["evaluated"] += 1
                else:
                    metrics, lut = stored[selection]
                    counts["cached"] += 1
                value = metrics[bound.metric]
                point = {"selection": selection, "metrics": metrics, "quality": value,
                         "objective": -value if bound.maximise else value, "violation": bound.violation(value),
                         "feasible": bound.holds(value), "lut_equivalents": lut}
                seen[selection] = point
                tracker.add(point)
            return [seen[selection] for selection in selections]

        def evaluate(selections):
            points = points_of(selections)
            bar.set_description_str("explore", refresh=False)
            bar.set_postfix(tracker.summary(), refresh=False)
            bar.update(len(points))
            return [(finite(p["objective"]), finite(p["violation"]), p["lut_equivalents"]) for p in points]

        searched = time.perf_counter()
        labelled = uniform_selections(space)
        uniform = [{**point, "label": label} for (label, _), point in zip(labelled, points_of([s for _, s in labelled]))]
        nsga2(space, evaluate, costs.costs, evaluations=evaluations, population=population, seed=seed)
        timings["search_s"] = time.perf_counter() - searched
        evaluator.close()
    finally:
        if bar is not None:
            bar.close()
        if client is not None and isinstance(scheduler, str):
            client.close()
    points = [seen[selection] for selection in sorted(seen)]
    result = ExploreResult(space, bound, points, uniform, costs, counts["evaluated"], counts["cached"])
    result.timings.update({name: round(value, 3) for name, value in timings.items()})
    evaluations_store.close()
    return result
