"""Error-versus-area Pareto fronts over the units of one kind.

:func:`non_dominated` is the algorithm, a plain function over points;
:func:`candidates` lists the configurations compared (every unit of the kind,
each integer parameter swept over a few values of its range); :func:`plot`
draws every candidate and highlights the front.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["non_dominated", "candidates", "characterise", "plot", "register_cli"]

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


def _label(row) -> str:
    params = ",".join(f"{k}={v}" for k, v in row["params"].items())
    return f"{row['unit']}({params})" if params else row["unit"]


def plot(rows: list[dict], path: str | Path, *, metric: str, title: str) -> None:
    """Write a scatter of error against LUT equivalents, every candidate shown, the front highlighted.

    The format follows the file name (``.png``, ``.svg``, ``.pdf``); the file is written
    to a temporary name beside it and renamed.
    """
    import os
    import tempfile
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    figure, axes = plt.subplots(figsize=(8, 5.5))
    others = [r for r in rows if not r["pareto"]]
    front = sorted((r for r in rows if r["pareto"]), key=lambda r: r["lut_equivalents"])
    axes.scatter([r["lut_equivalents"] for r in others], [r["error"] for r in others], color="0.6", s=18,
                 label="candidates")
    axes.plot([r["lut_equivalents"] for r in front], [r["error"] for r in front], "o-", color="tab:red",
              label="Pareto front", zorder=3)
    coincident = {}     # equal points get one label, not labels drawn over each other
    for row in front:
        coincident.setdefault((row["lut_equivalents"], row["error"]), []).append(_label(row))
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
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(descriptor)
    try:
        figure.savefig(temporary, format=path.suffix.lstrip(".") or "png", dpi=120)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    finally:
        plt.close(figure)


def _pareto_command(args) -> int:
    from . import synth
    from .cli import _error, _print_json
    output = Path(args.output) if args.output else Path(f"pareto_{args.kind}{args.width}_{args.target}_{args.metric}.png")
    if output.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise _error(f"-o {output}: the plot must be .png, .svg or .pdf")
    if not output.parent.is_dir():
        raise _error(f"-o {output}: directory {output.parent} does not exist")
    try:
        names = [u.strip() for u in args.units.split(",")] if args.units else None
        units = candidates(args.kind, args.width, names)
        cache = synth.ResultCache(Path(args.cache_dir) / "synth" if args.cache_dir else None)
        log = None if args.json else (lambda line: print(line, file=sys.stderr))
        rows = characterise(units, args.target, args.metric, samples=args.samples, seed=args.seed,
                            cache=cache, dsp=args.dsp, log=log)
    except ValueError as error:
        raise _error(str(error)) from None
    except synth.SynthesisError as error:
        raise _error(str(error), 1) from None
    plot(rows, output, metric=args.metric,
         title=f"{args.width}-bit {args.kind} on {args.target}: {args.metric} vs LUT equivalents")
    front = sorted((r for r in rows if r["pareto"]), key=lambda r: r["lut_equivalents"])
    if args.json:
        _print_json({"kind": args.kind, "width": args.width, "target": args.target,
                     "metric": args.metric, "plot": str(output), "front": front, "candidates": rows})
        return 0
    print(f"Pareto front ({len(front)} of {len(rows)} candidates), {args.metric} vs {args.target} "
          f"LUT equivalents (LUTs + carry cells):")
    for row in front:
        print(f"  {row['lut_equivalents']:>6} LUT-eq ({row['luts']:>5} LUTs {row['carry']:>4} carry)  "
              f"{args.metric}={row['error']:<12.6g} {_label(row)}")
    print(f"plot: {output}")
    return 0


def register_cli(commands) -> None:
    parser = commands.add_parser("pareto", help="error vs LUT equivalents: the non-dominated units, and a plot")
    parser.add_argument("--kind", required=True, choices=("add", "mul", "div"))
    parser.add_argument("--width", type=int, required=True, metavar="N")
    parser.add_argument("--target", default="ecp5", choices=("ecp5", "xc7", "ice40"))
    parser.add_argument("--metric", default="mred", help="error metric to minimise (default mred)")
    parser.add_argument("--units", help="comma-separated unit ids to compare (default: every unit of the kind)")
    parser.add_argument("--samples", type=int, help="Monte Carlo pairs (default: exhaustive up to 2 x 12 bits)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dsp", action="store_true", help="allow DSP blocks")
    parser.add_argument("-o", "--output", metavar="FILE", help="plot file, .png/.svg/.pdf")
    parser.add_argument("--cache-dir", metavar="DIR", help="result cache (default ~/.cache/axhls)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=_pareto_command)
