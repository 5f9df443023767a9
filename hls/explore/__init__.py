"""Design-space exploration: choose the approximate unit of each operation of a kernel or chain.

    result = hls.explore.explore(image.KERNELS, image.default_input(), image.quality, run=image.run,
                                 bound="psnr_db>=35", evaluations=400, seed=1, store="image.sqlite")
    result.front            # the estimated Pareto front (quality against LUT equivalents, or ADP)
    result.verify(simulate=sim.run)   # every front point measured whole; result.verified_front
    result.approx(0)        # {kernel: approx= mapping} of the reported front's cheapest point

* The space (:mod:`hls.explore.space`): one choice per ``*`` / ``//`` (and ``+``, ``-``, ``%`` with
  ``kinds=``) between non-constant operands, keyed ``FILE:LINE:COL``; exact or a candidate unit.
* Quality (:mod:`hls.explore.quality`): the compiled golden model with every candidate
  inlined and chosen per run, so no assignment compiles anything.
* Cost (:mod:`hls.explore.cost`): units synthesised alone at the operands' widths, plus
  each kernel's exact remainder.
* Search (:mod:`hls.explore.search`): NSGA-II, seeded, every evaluation kept in an SQLite
  store (:mod:`hls.explore.store`), so a re-run or a resumed run skips them.
* Cycles and verification (:mod:`hls.explore.verify`): cycles from each schedule (one simulation
  per distinct schedule) for the ADP objective; each front point simulated against its
  Python run, synthesised, placed and routed.

``docs/explore.md`` has the calling conventions and the image application end to end.
"""

from __future__ import annotations

import time

from approx_units import progress as progress_bars
from approx_units.synth import ResultCache

from .cost import CostModel
from .quality import Bound, QualityModel, parse_bound
from .search import DaskEvaluator, FrontTracker, LocalEvaluator, connect, finite, front, nsga2, uniform_selections
from .space import DEFAULT_CANDIDATES, DEFAULT_KINDS, ExploreError, Space, parse_candidates, verilog_candidates
from .store import EvaluationStore
from .verify import CycleModel, adp, verify_point

__all__ = ["explore", "ExploreResult", "OBJECTIVES", "ExploreError", "Space", "parse_candidates",
           "verilog_candidates", "parse_bound", "Bound", "DEFAULT_CANDIDATES", "DEFAULT_KINDS"]


#: The search's cost objectives: ``luts`` (estimated LUT equivalents) and ``adp`` (estimated
#: LUT-eq x cycles / Fmax, cycles from the schedule, Fmax the exact kernels').
OBJECTIVES = ("luts", "adp")


class ExploreResult:
    """What :func:`explore` found.

    Attributes
    ----------
    space : Space
    bound : Bound
    objective : str
        ``luts`` or ``adp``: what the search minimised beside the bound's metric.
    points : list of dict
        Every evaluated assignment (``selection``, ``metrics``, ``quality``, ``objective``,
        ``violation``, ``feasible``, ``lut_equivalents``; with ``adp``: ``cycles`` and ``adp``, the
        estimates; ``cost``, the estimate of the objective), in selection order.
    front : list of dict
        The feasible non-dominated points by the estimate, by increasing estimated cost.
    verified_front : list of dict or None
        After :meth:`verify`: the non-dominated points among the verified ones by their measured
        cost (LUT-eq or ADP, as ``objective``), cheapest first; ``None`` before.
    uniform : list of dict
        Exact and each uniform assignment (``label`` added).
    costs : CostModel
    cycles : hls.explore.verify.CycleModel or None
        The cycles estimate (``objective="adp"``, or made by :meth:`estimated_adp`).
    evaluated, cached : int
        Evaluations run in this call, and proposals answered from the store.
    timings : dict of str to float
        Seconds of this call's phases: ``compile_s`` (the compiled models and the exact
        run), ``cost_model_s`` (unit and kernel synthesis, or the cache, and the cycles model),
        ``search_s`` (the evaluations).  Not in :meth:`to_json`, which stays byte-identical
        between runs.
    """

    def __init__(self, space, bound, points, uniform, costs, evaluated, cached, *, objective="luts", cycles=None,
                 data=None, run=None):
        self.space, self.bound, self.points, self.uniform, self.costs = space, bound, points, uniform, costs
        self.objective, self.cycles, self._data, self._run = objective, cycles, data, run
        self.front = front(points, cost=lambda point: point["cost"])
        self.verified_front = None
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

    def estimated_adp(self, point: dict, *, simulate=None, cache=None) -> float:
        """The estimated ADP of ``point``: its own with ``objective="adp"``; else its estimated LUT-eq x
        the cycles of its schedule (:attr:`cycles`, a :class:`~hls.explore.verify.CycleModel` made on
        first use: one simulation per distinct schedule, ``simulate(kernel, args)``, kept in ``cache``)
        / the slowest exact kernel's Fmax, as ``objective="adp"`` estimates it.

        Raises
        ------
        ExploreError
            No simulator given when the cycles are not known yet.
        """
        if "adp" in point:
            return point["adp"]
        if self.cycles is None:
            if simulate is None:
                raise ExploreError("the ADP of a point needs a simulator (simulate=sim.run) for its cycles")
            self.cycles = CycleModel(self.space, self._data, self._run, simulate,
                                     cache if cache is not None else ResultCache())
        return adp(point["lut_equivalents"], self.cycles.cycles(point["selection"]), exact_fmax(self.costs))

    def reported_front(self) -> list[dict]:
        """The verified front after :meth:`verify`, else the estimated one."""
        return self.verified_front if self.verified_front is not None else self.front

    def approx(self, n: int) -> dict[str, dict]:
        """``{kernel: {key: [unit, {params}]}}`` of point ``n`` of the reported front (the verified one
        after :meth:`verify`): what ``@hls.kernel(approx=...)`` and ``axhls ... --approx @FILE.json`` accept.

        Raises
        ------
        ExploreError
            ``n`` outside the front.
        """
        points = self.reported_front()
        if not 0 <= n < len(points):
            raise ExploreError(f"--apply {n}: the front has {len(points)} points (0..{len(points) - 1})")
        mapping = self.space.mapping(points[n]["selection"])
        return {kernel: {key: [unit.unit, dict(unit.params)] for key, unit in units.items()}
                for kernel, units in mapping.items()}

    def verify(self, count: int | None = None, *, simulate, points=None, seeds=(1, 2, 3), cache=None,
               progress=None) -> list[dict]:
        """Measure every point of the estimated front (or its ``count`` cheapest, or ``points``) whole,
        add ``verified`` to each, and set :attr:`verified_front`.

        Each point is compiled; every kernel call of its Python run is simulated
        (``simulate(kernel, args)``, e.g. :func:`sim.run`: hardware against the Python run, cycles
        measured); every kernel is synthesised, placed and routed with each seed of ``seeds``
        (:func:`hls.explore.verify.verify_point`).  ``verified`` holds ``lut_equivalents``,
        ``ffs``, ``fmax_mhz``, ``cycles``, ``latency_us``, ``adp``, ``match``, the per-kernel
        figures and the estimate's error (``lut_error_pct``, and ``cycles_error_pct`` and
        ``adp_error_pct`` for the ``adp`` objective), in % of the measured figure.

        Raises
        ------
        ExploreError
            A point whose hardware differs from its Python run, or whose run raises.
        """
        chosen = list(points) if points is not None else self.front[:count] if count is not None else list(self.front)
        for n, point in enumerate(chosen):
            if "verified" not in point:
                measured = verify_point(self.space, point["selection"], self._data, self._run, simulate,
                                        seeds=seeds, cache=cache,
                                        progress=(lambda text, n=n: progress(f"verify {n + 1}/{len(chosen)}: {text}"))
                                        if progress is not None else None)
                if not measured["match"]:
                    wrong = [k["kernel"] for k in measured["kernels"] if not k["match"]]
                    raise ExploreError(f"assignment {list(point['selection'])}: the hardware of {', '.join(wrong)} "
                                       f"differs from its Python run")
                measured["lut_error_pct"] = _error(point["lut_equivalents"], measured["lut_equivalents"])
                if "cycles" in point:
                    measured["cycles_error_pct"] = _error(point["cycles"], measured["cycles"])
                    measured["adp_error_pct"] = _error(point["adp"], measured["adp"])
                point["verified"] = measured
        verified = [p for p in self.points if "verified" in p] + [p for p in self.uniform if "verified" in p
                                                                  and p not in self.points]
        measure = "adp" if self.objective == "adp" else "lut_equivalents"
        self.verified_front = front(verified, cost=lambda point: point["verified"][measure])
        return chosen

    def _row(self, point: dict) -> dict:
        row = {"selection": list(point["selection"]), "assignment": self.assignment(point),
               "quality": point["metrics"], "feasible": point["feasible"],
               **({"label": point["label"]} if "label" in point else {})}
        estimate = {"lut_equivalents": point["lut_equivalents"],
                    **({"cycles": point["cycles"], "adp": point["adp"]} if "cycles" in point else {})}
        measured = point.get("verified")
        if measured is not None:
            row.update({key: measured[key] for key in ("lut_equivalents", "ffs", "fmax_mhz", "cycles", "latency_us",
                                                       "adp", "match", "kernels")})
            estimate.update({key: measured[key] for key in ("lut_error_pct", "cycles_error_pct", "adp_error_pct")
                             if key in measured})
        row["estimate"] = estimate
        return row

    def to_json(self) -> dict:
        """The result as one JSON object: ``front`` is the verified front after :meth:`verify` (each
        point's measured ``lut_equivalents``, ``ffs``, ``fmax_mhz``, ``cycles``, ``adp`` beside its
        ``estimate``), else the estimated one (``estimate`` only); ``estimated_front`` is the
        estimate's."""
        return {"bound": str(self.bound), "objective": self.objective,
                "space": {"sites": self.space.to_json(), "size": self.space.size,
                          "skipped": self.space.skipped_json()},
                "exact": self.costs.exact, "remainders": self.costs.remainders,
                "evaluations": len(self.points), "evaluated_now": self.evaluated, "from_store": self.cached,
                "verified": self.verified_front is not None,
                "front": [self._row(point) for point in self.reported_front()],
                "estimated_front": [self._row(point) for point in self.front],
                "uniform": [self._row(point) for point in self.uniform]}


def exact_fmax(costs: CostModel) -> float:
    """The Fmax of the ADP estimate: the slowest exact kernel's (the chain runs on one clock)."""
    return min(exact["fmax_mhz"] for exact in costs.exact.values())


def _error(estimate: float, measured: float) -> float:
    return round(100 * (estimate - measured) / measured, 2)


def explore(kernels, data, quality, *, bound, run=None, candidates=None, kinds=DEFAULT_KINDS, verilog=None,
            evaluations: int = 400, population: int = 40, seed: int = 1, store=None, cache=None, scheduler=None,
            progress: bool | None = False, objective: str = "luts", simulate=None,
            names=("data", "quality", "run")) -> ExploreResult:
    """Search the per-operation assignments of ``kernels`` for the front of quality against LUT equivalents
    (``objective="luts"``) or ADP (``"adp"``).

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
        The kinds of operation searched (default ``mul`` and ``div``; ``add``, ``sub`` and ``mod`` too:
        :data:`hls.approx.KINDS`).
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

    objective : str
        ``luts``: the estimated LUT equivalents; ``adp``: the estimated LUT equivalents x cycles /
        Fmax, the cycles from each assignment's schedule (:class:`hls.explore.verify.CycleModel`:
        one simulation per distinct schedule, on the exact run's arguments), Fmax the slowest
        exact kernel's (the estimate does not model a unit's effect on the clock).
    simulate : callable, optional
        ``simulate(kernel, args)`` -> a run with ``cycles`` (:func:`sim.run`); needed for ``adp``
        (and for :meth:`ExploreResult.verify`).

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
    if objective not in OBJECTIVES:
        raise ExploreError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    if objective == "adp" and simulate is None:
        raise ExploreError("objective 'adp' needs a simulator (simulate=sim.run) for the cycles of each schedule")
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
        cache = cache if cache is not None else ResultCache()
        costs = CostModel(space, cache, progress=say)
        cycles = CycleModel(space, data, run, simulate, cache, progress=say) if objective == "adp" else None
        fmax = exact_fmax(costs)
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
                # The cost is estimated afresh: the store keeps the quality, which only the space decides.
                lut = costs.estimate(selection)
                if selection in computed:
                    metrics = computed[selection]
                    qualities.check_metric(metrics, bound.metric)
                    evaluations_store.put(selection, metrics, lut)
                    counts["evaluated"] += 1
                else:
                    metrics = stored[selection][0]
                    counts["cached"] += 1
                value = metrics[bound.metric]
                point = {"selection": selection, "metrics": metrics, "quality": value,
                         "objective": -value if bound.maximise else value, "violation": bound.violation(value),
                         "feasible": bound.holds(value), "lut_equivalents": lut, "cost": lut}
                if cycles is not None:
                    point["cycles"] = cycles.cycles(selection)
                    point["adp"] = point["cost"] = adp(lut, point["cycles"], fmax)
                seen[selection] = point
                tracker.add(point)
            return [seen[selection] for selection in selections]

        def evaluate(selections):
            points = points_of(selections)
            bar.set_description_str("explore", refresh=False)
            bar.set_postfix(tracker.summary(), refresh=False)
            bar.update(len(points))
            return [(finite(p["objective"]), finite(p["violation"]), p["cost"]) for p in points]

        started = time.perf_counter()
        labelled = uniform_selections(space)
        uniform = [{**point, "label": label} for (label, _), point in zip(labelled, points_of([s for _, s in labelled]))]
        nsga2(space, evaluate, costs.costs, evaluations=evaluations, population=population, seed=seed)
        timings["search_s"] = time.perf_counter() - started
        evaluator.close()
    finally:
        if bar is not None:
            bar.close()
        if client is not None and isinstance(scheduler, str):
            client.close()
    points = [seen[selection] for selection in sorted(seen)]
    result = ExploreResult(space, bound, points, uniform, costs, counts["evaluated"], counts["cached"],
                           objective=objective, cycles=cycles, data=data, run=run)
    result.timings.update({name: round(value, 3) for name, value in timings.items()})
    evaluations_store.close()
    return result
