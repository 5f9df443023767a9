"""Error-versus-area Pareto fronts over the units of one kind.

:func:`non_dominated` is the algorithm, a plain function over points;
:func:`candidates` lists the configurations compared (every unit of the kind,
each integer parameter swept over a few values of its range); :func:`plot`
draws every candidate and highlights the front.
"""

from __future__ import annotations

from pathlib import Path

import artefacts

__all__ = ["non_dominated", "candidates", "characterise", "plot", "label"]

#: How many values of each parameter's range are tried (evenly spread, ends included).
VALUES_PER_PARAMETER = 5


def non_dominated(points: list[tuple[float, float]]) -> list[int]:
    """Indices of the points no other point dominates, both coordinates minimised.

    A point dominates another if it is no worse in both coordinates and better in
    one.  Equal points are all kept.  Returned in increasing order of the first
    coordinate (then the second).
    """
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1]))
    front, best_second = [], float("inf")
    previous = None
    for index in order:
        point = points[index]
        if point[1] < best_second or (previous is not None and point == previous):
            front.append(index)
            best_second = min(best_second, point[1])
            previous = point
    return front


def candidates(kind: str, width: int, units: list[str] | None = None) -> list:
    """Every unit of ``kind`` at ``width``: its defaults plus each parameter swept over its range.

    ``units`` restricts the candidates to those ids.

    Raises
    ------
    ValueError
        If ``units`` names an unknown unit or one of another kind.
    """
    import approx_units
    from approx_units.unit import spec
    for name in units or ():
        if spec(name).kind != kind:
            raise ValueError(f"unit {name!r} is a {spec(name).kind} unit, not a {kind} unit")
    result, seen = [], set()
    for name in approx_units.names():
        unit_spec = spec(name)
        if unit_spec.kind != kind or (units and name not in units):
            continue
        default = approx_units.get(name, width=width)
        configurations = [dict(default.unit_params)]
        for param in unit_spec.params:
            if param.name == "frac_bits":      # a format choice, not an accuracy knob
                continue
            lo, hi = _bounds(param, width)
            steps = sorted({round(lo + (hi - lo) * i / (VALUES_PER_PARAMETER - 1))
                            for i in range(VALUES_PER_PARAMETER)})
            for value in steps:
                configurations.append({**default.unit_params, param.name: value})
        for params in configurations:
            key = (name, tuple(sorted(params.items())))
            if key in seen:
                continue
            try:
                unit = approx_units.get(name, width=width, **params)
            except ValueError:              # a cross-parameter check (GeAr's r, p) ruled it out
                continue
            seen.add(key)
            result.append(unit)
    return result


def _bounds(param, width):
    import inspect
    arity = len(inspect.signature(param.bounds).parameters)
    return param.bounds(*(width, width, False)[:arity])


def characterise(units, target: str, metric: str, *, samples: int | None = None, seed: int = 0,
                 cache=None, dsp: bool = False, log=None) -> list[dict]:
    """Error ``metric`` and area of each unit (synthesis without place and route).

    Area is ``lut_equivalents`` (see :class:`~approx_units.synth.AreaReport`):
    on ECP5 a carry cell occupies two LUT4s, so ranking by LUT4s alone would
    make adders mapped wholly to carry chains look free.
    """
    from . import evaluate as ev
    from . import synth
    rows = []
    for unit in units:
        subject = ev.LibraryUnit(unit.name, unit.width, 0, tuple(sorted(unit.params.items())))
        evaluation = ev.evaluate(subject, samples=samples, seed=seed, progress=False)
        if metric not in evaluation.metrics:
            raise ValueError(f"unknown metric {metric!r}; choose from {', '.join(evaluation.metrics)}")
        report = synth.synthesize_unit(unit, target, timing=False, dsp=dsp, cache=cache)
        shown = {k: v for k, v in unit.params.items()
                 if k != "signed" and not (k == "width_b" and v == unit.width)}
        rows.append({"unit": unit.name, "params": shown,
                     "error": float(evaluation.metrics[metric]), "luts": report.luts,
                     "carry": report.carry, "lut_equivalents": report.lut_equivalents,
                     "exhaustive": evaluation.exhaustive})
        if log:
            log(f"{unit.name} {rows[-1]['params']}: {metric}={rows[-1]['error']:.6g}, "
                f"{report.lut_equivalents} LUT equivalents")
    front = set(non_dominated([(row["lut_equivalents"], row["error"]) for row in rows]))
    for index, row in enumerate(rows):
        row["pareto"] = index in front
    return rows


def label(row) -> str:
    params = ",".join(f"{k}={v}" for k, v in row["params"].items())
    return f"{row['unit']}({params})" if params else row["unit"]


def plot(rows: list[dict], path: str | Path, *, metric: str, title: str) -> None:
    """Write a scatter of error against LUT equivalents, every candidate shown, the front highlighted.

    The format follows the file name (``.png``, ``.svg``, ``.pdf``); the file is written
    through :func:`artefacts.atomic_path` (a temporary name beside it, then a rename).

    Raises
    ------
    artefacts.DestinationError
        ``path`` cannot be written (check it with
        :func:`artefacts.check_file_destination` before the work that makes ``rows``).
    """
    # matplotlib is heavy and only plotting needs it.
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    figure, axes = plt.subplots(figsize=(8, 5.5))
    try:
        others = [r for r in rows if not r["pareto"]]
        front = sorted((r for r in rows if r["pareto"]), key=lambda r: r["lut_equivalents"])
        axes.scatter([r["lut_equivalents"] for r in others], [r["error"] for r in others], color="0.6",
                     s=18, label="candidates")
        axes.plot([r["lut_equivalents"] for r in front], [r["error"] for r in front], "o-",
                  color="tab:red", label="Pareto front", zorder=3)
        coincident = {}     # equal points get one label, not labels drawn over each other
        for row in front:
            coincident.setdefault((row["lut_equivalents"], row["error"]), []).append(label(row))
        for point, labels in coincident.items():
            axes.annotate("\n".join(labels), point, fontsize=7, xytext=(4, 4), textcoords="offset points")
        positive = [r["error"] for r in rows if r["error"] > 0]
        if positive:
            # Logarithmic above a threshold, linear through zero so that exact units still show.
            axes.set_yscale("symlog", linthresh=max(min(positive), 1e-4 * max(positive)))
        axes.set_xlabel("LUT equivalents (ECP5: LUT4 + 2 per CCU2C carry cell)")
        axes.set_ylabel(metric)
        axes.set_title(title)
        axes.grid(True, alpha=0.3)
        axes.legend()
        figure.tight_layout()
        with artefacts.atomic_path(path) as temporary:
            figure.savefig(temporary, format=path.suffix.lstrip(".") or "png", dpi=120)
    finally:
        plt.close(figure)
