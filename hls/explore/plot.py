"""The plot of an exploration: quality against ADP, the uniform configurations beside the front.

* x: ADP, LUT equivalents x latency (cycles / Fmax, us), as ``benchmarks/apps.py`` defines it.
  A verified point (:meth:`hls.explore.ExploreResult.verify`) is drawn at its measured ADP
  (filled marker), any other at its estimate (hollow: :meth:`~hls.explore.ExploreResult.estimated_adp`,
  whose cycles come from one simulation per distinct schedule).
* y: the bound's metric, the bound a dashed line.  An infinite value (the PSNR of the exact run
  against itself) is drawn above the others and labelled ``inf``.
* Drawn: the estimated front, the verified front (after ``verify``), every uniform configuration
  (exact, and each candidate on every operation of its kind) labelled, and with
  ``objective="adp"`` every evaluated point, whose ADP the search estimated.

The file is written by :func:`artefacts.write_figure`: atomically, byte-identical between runs.
"""

from __future__ import annotations

import math

import artefacts

__all__ = ["draw", "plot"]


def _shown(values: list[float]) -> tuple[list[float], float | None]:
    """``values`` with every infinite one replaced by a height above the finite ones (also returned)."""
    finite = [value for value in values if math.isfinite(value)]
    if len(finite) == len(values):
        return values, None
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    top = high + max(0.1 * (high - low), 1.0)
    return [value if math.isfinite(value) else (top if value > 0 else low - (top - high)) for value in values], top


def draw(result, *, simulate=None, cache=None):
    """The figure of ``result`` (an :class:`hls.explore.ExploreResult`); see the module docstring.

    ``simulate`` and ``cache`` are :meth:`~hls.explore.ExploreResult.estimated_adp`'s, needed for an
    unverified point of a search whose objective was not ADP.

    Raises
    ------
    hls.explore.ExploreError
        An ADP to estimate and no simulator.
    """
    # matplotlib is the `plot` extra, and slow to import: only plotting needs it.
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt     # after matplotlib.use: the backend is chosen first

    def position(point) -> tuple[float, bool]:
        measured = point.get("verified")
        if measured is not None:
            return measured["adp"], True
        return result.estimated_adp(point, simulate=simulate, cache=cache), False

    layers = [("evaluated", [p for p in result.points if "adp" in p] if result.objective == "adp" else []),
              ("front (estimate)", list(result.front)),
              ("front (verified)", list(result.verified_front or [])),
              ("uniform", list(result.uniform))]
    positions = {name: [position(point) for point in points] for name, points in layers}
    heights, top = _shown([point["quality"] for _, points in layers for point in points])
    figure, axes = plt.subplots(figsize=(7, 4.5))
    at = 0
    for name, points in layers:
        xs = [x for x, _ in positions[name]]
        filled = [measured for _, measured in positions[name]]
        ys = heights[at:at + len(points)]
        at += len(points)
        if not points:
            continue
        if name == "evaluated":
            axes.scatter(xs, ys, s=6, c="0.75", label=name, gid=name)
        elif name.startswith("front"):
            colour = "C0" if name == "front (estimate)" else "C2"
            order = sorted(range(len(points)), key=lambda i: xs[i])
            axes.plot([xs[i] for i in order], [ys[i] for i in order], "-", c=colour, lw=1, gid=name + " line")
            axes.scatter(xs, ys, marker="o" if colour == "C0" else "D", s=24, label=name, gid=name,
                         facecolors=[colour if f else "none" for f in filled], edgecolors=colour)
        else:
            axes.scatter(xs, ys, marker="s", s=30, label="uniform configurations", gid=name,
                         facecolors=["C3" if f else "none" for f in filled], edgecolors="C3", zorder=3)
            for index, (point, x, y) in enumerate(zip(points, xs, ys)):
                text = point["label"] + (" (inf)" if not math.isfinite(point["quality"]) else "")
                # Configurations of equal quality sit on one line: stagger their labels.
                axes.annotate(text, (x, y), textcoords="offset points", xytext=(5, 3 + 9 * (index % 3)), fontsize=6,
                              color="C3")
    axes.axhline(result.bound.value, ls="--", c="0.4", lw=0.8, label=f"bound {result.bound}")
    if top is not None:
        axes.axhline(top, ls=":", c="0.8", lw=0.6)
    axes.set_xlabel("ADP (LUT equivalents x latency, us); filled: measured, hollow: estimate")
    axes.set_ylabel(result.bound.metric)
    axes.set_title(f"quality against ADP: {len(result.front)} front points, {len(result.uniform)} uniform")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=7)
    figure.tight_layout()
    return figure


def plot(result, path, *, simulate=None, cache=None) -> None:
    """Write :func:`draw`'s figure to ``path`` (``.png``, ``.svg`` or ``.pdf``), checked first and written
    atomically (:func:`artefacts.write_figure`).

    Raises
    ------
    artefacts.DestinationError
        The file cannot be written there, or its suffix names no format written.
    hls.explore.ExploreError
        As :func:`draw`.
    """
    artefacts.check_figure_destination(path)
    figure = draw(result, simulate=simulate, cache=cache)
    try:
        artefacts.write_figure(path, figure)
    finally:
        # (matplotlib as in draw: loaded by then.)
        import matplotlib.pyplot as plt
        plt.close(figure)
