"""Error-versus-area Pareto fronts over the units of one kind.

:func:`non_dominated` is the algorithm, a plain function over points;
:func:`candidates` lists the configurations compared (every unit of the kind
over every valid combination of its parameters, coarsest grid first); :func:`plot`
draws every candidate and highlights the front.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import approx_units
import artefacts

from . import evaluate, progress as progress_bars, synth
from .metrics import KIND_NOUNS, METRIC_NAMES
from .registry import parameter_grid, spec

__all__ = ["non_dominated", "candidates", "refinement_level", "coverage", "check_metric", "characterise", "plot", "draw", "label", "ConstantZero", "trivial_error",
           "kind_of_trivial"]

#: Parameters that choose a format rather than trade accuracy for area (left at their defaults).
FORMAT_PARAMETERS = ("frac_bits",)


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
    """Every unit of ``kind`` at ``width`` over its parameters' whole ranges, coarsest grid first.

    The grid is :func:`approx_units.registry.parameter_grid` (every valid
    combination; :data:`FORMAT_PARAMETERS` at their defaults), so units and
    parameters added to the registry are swept too.  The order is
    coarse-to-fine within each unit (its defaults, then the ends of every
    range, then the midpoints, the quarter points and so on:
    :func:`refinement_level`), and round robin across units, so that a search
    stopped by a time budget has measured as many candidates of every unit
    (until a unit's grid is exhausted), each spread over its ranges.
    ``units`` restricts the candidates to those ids.

    Raises
    ------
    ValueError
        If ``units`` names an unknown unit or one of another kind.
    """
    for name in units or ():
        if spec(name).kind != kind:
            raise ValueError(f"unit {name!r} is {KIND_NOUNS[spec(name).kind]}, not {KIND_NOUNS[kind]}")
    per_unit = []
    for name in approx_units.names():
        unit_spec = spec(name)
        if unit_spec.kind != kind or (units and name not in units):
            continue
        default = approx_units.get(name, width=width).unit_params
        bounds = {param.name: param.bounds(width, width, False) for param in unit_spec.params}
        ranked = []
        for index, params in enumerate(parameter_grid(name, width, exclude=FORMAT_PARAMETERS)):
            level = -1 if params == default else max(
                (refinement_level(value, *bounds[key]) for key, value in params.items()
                 if key not in FORMAT_PARAMETERS), default=0)
            ranked.append((level, index, params))
        per_unit.append([(name, params) for _, _, params in sorted(ranked, key=lambda item: item[:2])])
    # Round robin: the i-th candidate of every unit before the (i+1)-th of any, so that a unit with
    # a two-parameter grid does not take the budget from one with a single parameter.
    order = [unit[i] for i in range(max(map(len, per_unit), default=0)) for unit in per_unit if i < len(unit)]
    return [approx_units.get(name, width=width, **params) for name, params in order]


def refinement_level(value: int, lo: int, hi: int) -> int:
    """At which subdivision of ``lo..hi`` the integer ``value`` first appears.

    0 for the ends, 1 for the midpoint, 2 for the quarter points (each rounded
    to the nearest integer), and so on, until every integer of the range has
    appeared.
    """
    if value in (lo, hi):
        return 0
    level = 1
    while True:
        parts = 1 << level
        if any(lo + round((hi - lo) * k / parts) == value for k in range(1, parts)):
            return level
        level += 1


def coverage(units, measured) -> dict[str, tuple[int, int]]:
    """Per unit id, ``(measured, candidates)``: how much of its grid ``measured`` (units or rows) covers."""
    done: dict[str, int] = {}
    for item in measured:
        name = item["unit"] if isinstance(item, dict) else item.name
        done[name] = done.get(name, 0) + 1
    total: dict[str, int] = {}
    for unit in units:
        total[unit.name] = total.get(unit.name, 0) + 1
    return {name: (done.get(name, 0), count) for name, count in total.items()}


class ConstantZero:
    """The circuit that always outputs 0: zero LUTs, and the error of knowing nothing.

    A candidate whose error is no better than this one's (``trunc_mul`` with
    every column dropped: MRED 1 at 0 LUTs) is no arithmetic unit: it is
    marked ``trivial`` wherever it is shown, and a third-party circuit that is
    no better is called trivial, not unbeaten.
    """

    def __init__(self, kind: str, width: int, width_b: int | None = None, signed: bool = False):
        self.kind, self.width, self.signed = kind, width, signed
        self.width_b = width if width_b is None else width_b
        self.name = self.description = "constant 0"

    def model(self, a, b):
        return np.zeros(np.broadcast(np.asarray(a), np.asarray(b)).shape, dtype=np.int64)


def trivial_error(kind: str, width: int, metric: str, *, samples: int | None = None, seed: int = 0) -> float:
    """``metric`` of :class:`ConstantZero`, measured as the candidates are."""
    evaluation = evaluate.evaluate(ConstantZero(kind, width), samples=samples, seed=seed, progress=False)
    return float(evaluation.metrics[metric])


def check_metric(metric: str) -> None:
    """Raise ``ValueError`` (one line, the allowed names) unless ``metric`` is an error metric's name."""
    if metric not in METRIC_NAMES:
        raise ValueError(f"unknown metric {metric!r}; choose from {', '.join(METRIC_NAMES)}")


def characterise(units, target: str, metric: str, *, samples: int | None = None, seed: int = 0,
                 cache=None, dsp: bool = False, log=None, verilog: list[dict] | None = None,
                 progress: bool | None = None, budget: float | None = None) -> list[dict]:
    """Error ``metric`` and area of each unit (synthesis without place and route), and the front.

    Area is ``lut_equivalents`` (see :class:`~approx_units.synth.AreaReport`):
    on ECP5 a carry cell occupies two LUT4s, so ranking by LUT4s alone would
    make adders mapped wholly to carry chains look free.

    Parameters
    ----------
    verilog : list of dict, optional
        Third-party circuits measured by :func:`approx_units.survey.characterise_file`
        (rows with an ``error`` are left out); they are compared with the
        library's front (``dominated_by_library``) but not put on it.
    budget : float, optional
        Seconds after which no further unit is started (the one running
        finishes); the units are taken in the order given, so with
        :func:`candidates`' coarse-to-fine order a budget leaves an evenly
        coarser grid.  :func:`coverage` of the rows says what was measured.

    Returns
    -------
    list of dict
        One row per measured candidate: ``unit``, ``params``, ``error``, ``luts``,
        ``carry``, ``lut_equivalents``, ``exhaustive``, ``source`` (``"library"``
        or ``"verilog"``), ``trivial`` (no better than a constant 0 output),
        ``constant`` (a library unit whose output is a constant, the value, else
        ``None``), ``same_circuit_as`` (for a candidate whose traced graph is identical to an
        earlier one's, e.g. a parameter that changes nothing at this width: that candidate's
        ``unit`` and ``params``, whose measurement it shares; else ``None``) and ``pareto`` (on the library's front; trivial units take
        part, so a circuit no better than a constant 0 is never unbeaten).

    A bar over the units shows the progress with tqdm's estimate of the time left
    (``progress``; see :func:`approx_units.progress.bar`).
    """
    check_metric(metric)
    rows = []
    started = time.monotonic()
    bar = progress_bars.bar(len(units), unit="unit", description="units", enabled=progress)
    measured = {}       # graph structure -> (row of its first candidate, error, synthesis report)
    for unit in units:
        if budget is not None and time.monotonic() - started >= budget:
            break
        shown = {k: v for k, v in unit.params.items()
                 if k != "signed" and not (k == "width_b" and v == unit.width)}
        structure = unit.graph.structure()
        if structure in measured:
            # The same circuit under other parameters: measuring it again would only repeat the figures.
            first, error, exhaustive, report = measured[structure]
            same_as = {"unit": first["unit"], "params": first["params"]}
        else:
            subject = evaluate.LibraryUnit(unit.name, unit.width, 0, tuple(sorted(unit.params.items())))
            evaluation = evaluate.evaluate(subject, samples=samples, seed=seed, progress=False)
            error, exhaustive = float(evaluation.metrics[metric]), evaluation.exhaustive
            report = synth.synthesize_unit(unit, target, timing=False, dsp=dsp, cache=cache)
            same_as = None
        output = unit.graph.output
        rows.append({"unit": unit.name, "params": shown, "source": "library",
                     "error": error, "luts": report.luts,
                     "carry": report.carry, "lut_equivalents": report.lut_equivalents,
                     "exhaustive": exhaustive, "same_circuit_as": same_as,
                     "constant": output.attrs[0] if output.op == "const" else None})
        measured.setdefault(structure, (rows[-1], error, exhaustive, report))
        if log:
            log(f"{unit.name} {rows[-1]['params']}: {metric}={rows[-1]['error']:.6g}, "
                f"{report.lut_equivalents} LUT equivalents")
        bar.update()
    bar.close()
    for circuit in verilog or ():
        if "error" in circuit or "lut_equivalents" not in circuit:
            continue
        rows.append({"unit": circuit["circuit"], "params": {}, "source": "verilog",
                     "error": float(circuit["metrics"][metric]), "luts": circuit["luts"],
                     "carry": circuit["carry"], "lut_equivalents": circuit["lut_equivalents"],
                     "exhaustive": circuit["exhaustive"], "constant": None, "same_circuit_as": None})
    floor = float("inf")
    if units:
        floor = trivial_error(spec(units[0].name).kind, units[0].width, metric, samples=samples, seed=seed)
    for row in rows:
        row["trivial"] = row["error"] >= floor
    # A candidate that repeats an earlier one's circuit stays off the front: its twin stands for it.
    library = [i for i, row in enumerate(rows) if row["source"] == "library" and row["same_circuit_as"] is None]
    front = {library[i] for i in non_dominated([(rows[j]["lut_equivalents"], rows[j]["error"]) for j in library])}
    for index, row in enumerate(rows):
        row["pareto"] = index in front
        if row["source"] == "verilog":
            row["dominated_by_library"] = any(
                rows[j]["lut_equivalents"] <= row["lut_equivalents"] and rows[j]["error"] <= row["error"]
                for j in front)
    return rows


def kind_of_trivial(row) -> str | None:
    """How ``row`` of :func:`characterise` is trivial, in words, or ``None`` if it is not."""
    if row.get("constant") is not None:
        return f"constant {row['constant']} output"
    if row.get("trivial"):
        return "no better than a constant 0 output"
    return None


def label(row) -> str:
    params = ",".join(f"{k}={v}" for k, v in row["params"].items())
    return f"{row['unit']}({params})" if params else row["unit"]


#: Where a label may go relative to its point (points): near first, then further out.
_LABEL_OFFSETS = [(dx, dy) for distance in (1, 2, 3, 4, 5)
                  for dx, dy in ((4, 3), (4, -9), (-4, 3), (-4, -9))
                  for dx, dy in [(dx * (1 + (distance - 1) // 2), dy + (distance - 1) * (10 if dy > 0 else -10))]]


def _label_offsets(axes, figure, anchors, texts, fontsize):
    """An offset (in points) for each label so that labels overlap as little as possible.

    Greedy and deterministic: each label, in order, takes the first offset of
    :data:`_LABEL_OFFSETS` whose box meets no label placed before it, or else
    the one that overlaps them least.
    """
    scale = figure.dpi / 72.0
    placed, offsets = [], []
    frame = axes.get_window_extent()

    def overlap(box):
        outside = (max(0.0, frame.x0 - box[0]) + max(0.0, box[2] - frame.x1)
                   + max(0.0, frame.y0 - box[1]) + max(0.0, box[3] - frame.y1))
        return 1e6 * outside + sum(
            max(0.0, min(box[2], b[2]) - max(box[0], b[0])) * max(0.0, min(box[3], b[3]) - max(box[1], b[1]))
            for b in placed)

    for (x, y), text in zip(anchors, texts):
        lines = text.split("\n")
        width = max(len(line) for line in lines) * fontsize * 0.55 * scale
        height = len(lines) * fontsize * 1.2 * scale
        px, py = axes.transData.transform((x, y))
        best = None
        for dx, dy in _LABEL_OFFSETS:
            left = px + dx * scale - (width if dx < 0 else 0)
            bottom = py + dy * scale
            box = (left, bottom, left + width, bottom + height)
            cost = overlap(box)
            if best is None or cost < best[0]:
                best = (cost, box, (dx, dy))
            if cost == 0:
                break
        placed.append(best[1])
        offsets.append(best[2])
    return offsets


def plot(rows: list[dict], path: str | Path, *, metric: str, title: str) -> None:
    """Write :func:`draw`'s figure to ``path``; the format follows the name (``.png``, ``.svg``, ``.pdf``).

    The destination is checked first and written through :func:`artefacts.write_figure` (atomically,
    byte-identical between runs).

    Raises
    ------
    artefacts.DestinationError
        The file cannot be written.
    """
    path = Path(path)
    artefacts.check_figure_destination(path)
    figure = draw(rows, metric=metric, title=title)
    try:
        artefacts.write_figure(path, figure)
    finally:
        _pyplot().close(figure)


def _pyplot():
    # matplotlib is optional (the `plot` extra) and slow to import: only plotting needs it.
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def draw(rows: list[dict], *, metric: str, title: str):
    """The figure of error against LUT equivalents: every candidate labelled, the front a staircase.

    * The error axis is logarithmic; exact candidates (error 0) sit on a strip
      of their own below the smallest non-zero error, labelled ``0 (exact)``.
    * The front is the staircase of the library's non-dominated candidates;
      other candidates are grey; third-party circuits (``source == "verilog"``)
      have a colour of their own; candidates no better than a constant 0
      output (``trivial``) are crossed out, on the front or not.
    * LUT ticks are integers; coincident points share one label, and labels are
      placed so as not to overlap (with a leader line when pushed away).

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _pyplot()
    from matplotlib.ticker import FixedLocator, MaxNLocator     # optional and heavy, as in _pyplot

    positive = sorted(r["error"] for r in rows if r["error"] > 0)
    smallest = positive[0] if positive else 1.0
    zero_level = smallest / 10.0
    shown = lambda row: row["error"] if row["error"] > 0 else zero_level

    figure, axes = plt.subplots(figsize=(9, 6))
    source = lambda row: row.get("source", "library")
    trivial = lambda row: row.get("trivial", False)
    groups = [
        ("candidates", "0.6", "o", [r for r in rows if source(r) == "library" and not r["pareto"]
                                     and not trivial(r)]),
        ("third-party circuits", "tab:blue", "s", [r for r in rows if source(r) == "verilog"]),
        ("no better than a constant 0", "0.75", "x", [r for r in rows if source(r) == "library" and trivial(r)]),
    ]
    for name, colour, marker, members in groups:
        if members:
            axes.scatter([r["lut_equivalents"] for r in members], [shown(r) for r in members], color=colour,
                         marker=marker, s=22, label=name, zorder=2)
    front = sorted((r for r in rows if r["pareto"]), key=lambda r: (r["lut_equivalents"], -r["error"]))
    if front:
        axes.step([r["lut_equivalents"] for r in front], [shown(r) for r in front], where="post",
                  color="tab:red", zorder=3)
        useful = [r for r in front if not trivial(r)]
        axes.scatter([r["lut_equivalents"] for r in useful], [shown(r) for r in useful], color="tab:red",
                     s=30, label="Pareto front (library)", zorder=4)
    axes.set_yscale("log")
    low = zero_level / 2.0
    high = (positive[-1] if positive else 1.0) * 3.0
    axes.set_ylim(low, high)
    if any(r["error"] == 0 for r in rows):
        axes.axhline(zero_level * 2.2, color="0.85", linewidth=0.8, zorder=1)   # the strip's edge
        ticks = [t for t in axes.get_yticks() if zero_level * 3 <= t <= high] + [zero_level]
        axes.yaxis.set_major_locator(FixedLocator(sorted(ticks)))
        axes.set_yticklabels([("0 (exact)" if t == zero_level else f"{t:.0e}") for t in sorted(ticks)])
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))

    coincident = {}     # equal points get one label, not labels drawn over each other
    for row in sorted(rows, key=lambda r: (not r["pareto"], r["lut_equivalents"], r["error"], label(r))):
        coincident.setdefault((row["lut_equivalents"], shown(row)), []).append(row)
    anchors, texts, styles = [], [], []
    for point, members in coincident.items():
        anchors.append(point)
        texts.append("\n".join(label(r) for r in members))
        on_front = any(r["pareto"] for r in members)
        third_party = all(source(r) == "verilog" for r in members)
        styles.append(("black", 7) if on_front else ("tab:blue", 6) if third_party else ("0.45", 6))
    axes.set_xlabel("LUT equivalents (ECP5: LUT4 + 2 per CCU2C carry cell)")
    axes.set_ylabel(f"{metric} (log scale)")
    axes.set_title(title)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.canvas.draw()        # fixes the transforms the labels are placed with
    offsets = _label_offsets(axes, figure, anchors, texts, 6.5)
    for point, text, (colour, size), (dx, dy) in zip(anchors, texts, styles, offsets):
        # A label pushed away from its point gets a thin leader line back to it.
        leader = dict(arrowstyle="-", color="0.7", linewidth=0.5) if abs(dy) > 10 or abs(dx) > 4 else None
        axes.annotate(text, point, fontsize=size, color=colour, xytext=(dx, dy), textcoords="offset points",
                      ha="right" if dx < 0 else "left", arrowprops=leader)
    return figure
