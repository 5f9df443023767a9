"""Issue 23's "better than uniform" target: per application, the explorer's best verified point inside the
quality bound against the best uniform configuration of ``benchmarks/apps.py``, both by measured ADP.

    python benchmarks/explore_gain.py [--app image|ecg|tracking ...] [--evaluations 2000] [--population 40]
                                      [--seed 1] [--objective adp|luts] [--verify 3] [--candidates TEXT]
                                      [--store DIR] [--json]

* **Baseline**: every configuration of :data:`benchmarks.apps.CONFIGS`, sequential version, measured as
  ``benchmarks/apps.py`` measures it (quality of the Python run; cycles simulated; LUT-eq and Fmax of
  every kernel synthesised, placed and routed, median of seeds 1-3; ADP = LUT-eq x cycles / Fmax).  Only
  the configurations inside the bound are synthesised; the best uniform is the one of lowest ADP.
* **Explorer**: :func:`hls.explore.explore` with the given budget and objective, then its ``--verify``
  cheapest front points (by the estimate) measured whole (:meth:`ExploreResult.verify`: simulated against
  their Python runs, synthesised, placed and routed, seeds 1-3).  The best verified point is the one of
  lowest measured ADP; every front point is inside the bound by construction.
* **Gain** = 1 - explorer ADP / best uniform ADP, in %; the target is at least 15 %.

Synthesis and simulation are cached (:class:`approx_units.synth.ResultCache`), so a rerun is quick.
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

from benchmarks.apps import APPS, CONFIGS, app_module, configure, measure_trace  # noqa: E402
from benchmarks.explore_apps import bound_of  # noqa: E402

TARGET_PCT = 15.0


class _Quiet:
    """The progress object ``measure_trace`` expects, showing nothing."""

    def set_description(self, text):
        pass

    def update(self, n):
        pass


def baseline(name: str, cache, *, seeds: int = 3) -> dict:
    """Every configuration of ``benchmarks/apps.py`` on application ``name`` (quality; ADP for those inside
    the bound) and the best uniform one."""
    app = app_module(name)
    data = app.default_input()
    reference = app.run(app.KERNELS, data)
    rows = []
    for config, mapping in CONFIGS:
        trace = []
        output = app.run(configure(app.KERNELS, mapping), data, trace)
        quality = app.quality(reference, output, data)
        row = {"config": config, "quality": {k: v for k, v in quality.items() if k not in ("tp", "fn", "fp")}}
        if quality["meets_target"]:
            measured = measure_trace(name, config, trace, synth=True, cache=cache, progress=_Quiet(), seeds=seeds)
            row.update({key: measured[key] for key in ("lut_equivalents", "fmax_mhz", "cycles", "adp", "match")})
            row["kernels"] = [{key: k[key] for key in ("kernel", "lut_equivalents", "fmax_mhz", "cycles")}
                              for k in measured["kernels"]]
        rows.append(row)
    best = min((r for r in rows if "adp" in r), key=lambda r: r["adp"])
    return {"configs": rows, "best": best}


def explored(name: str, cache, *, evaluations: int, population: int, seed: int, objective: str, verify: int,
             candidates: str | None, store: str | None) -> dict:
    """The explorer on application ``name``, its ``verify`` cheapest front points measured whole."""
    import hls.explore as explore
    import sim
    app = app_module(name)
    began = time.perf_counter()
    result = explore.explore(app.KERNELS, app.default_input(), app.quality, run=app.run, bound=bound_of(name, app),
                             candidates=candidates, evaluations=evaluations, population=population, seed=seed,
                             objective=objective, simulate=sim.run, cache=cache,
                             store=os.path.join(store, f"gain-{name}.sqlite") if store else None)
    searched = time.perf_counter() - began
    result.verify(verify, simulate=sim.run, cache=cache)
    checked = [p for p in result.front[:verify] if "verified" in p]
    best = min(checked, key=lambda p: p["verified"]["adp"])
    measured = best["verified"]
    return {"sites": len(result.space.sites), "assignments": result.space.size, "evaluations": len(result.points),
            "search_s": round(searched, 1), "front_points": len(result.front),
            "verified": [{"estimate_cost": p["cost"], "quality": p["quality"], "adp": p["verified"]["adp"],
                          "lut_equivalents": p["verified"]["lut_equivalents"],
                          "lut_equivalents_estimate": p["lut_equivalents"],
                          "lut_error_pct": p["verified"]["lut_error_pct"],
                          "fmax_mhz": p["verified"]["fmax_mhz"], "cycles": p["verified"]["cycles"],
                          "kernels": [{key: k[key] for key in ("kernel", "lut_equivalents", "fmax_mhz")}
                                      for k in p["verified"]["kernels"]]}
                         for p in checked],
            "best": {"quality": best["metrics"], "lut_equivalents": measured["lut_equivalents"],
                     "fmax_mhz": measured["fmax_mhz"], "cycles": measured["cycles"], "adp": measured["adp"],
                     "kernels": [{key: k[key] for key in ("kernel", "lut_equivalents", "fmax_mhz", "cycles")}
                                 for k in measured["kernels"]],
                     "assignment": {r["key"]: r["unit"] + (str(r["params"]) if r["params"] else "")
                                    for r in result.assignment(best)}}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", action="append", choices=APPS)
    parser.add_argument("--evaluations", type=int, default=2000)
    parser.add_argument("--population", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--objective", choices=("adp", "luts"), default="adp")
    parser.add_argument("--verify", type=int, default=3, metavar="N",
                        help="front points measured whole, cheapest first (default 3)")
    parser.add_argument("--candidates", help="as axhls explore --candidates (default the explorer's)")
    parser.add_argument("--store", metavar="DIR", help="keep each application's evaluations in DIR/gain-APP.sqlite")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.verify < 1:
        parser.error(f"--verify must be at least 1, not {args.verify}")
    from approx_units.synth import ResultCache
    cache = ResultCache()
    rows = []
    for name in args.app or APPS:
        base = baseline(name, cache)
        found = explored(name, cache, evaluations=args.evaluations, population=args.population, seed=args.seed,
                         objective=args.objective, verify=args.verify, candidates=args.candidates, store=args.store)
        gain = 100 * (1 - found["best"]["adp"] / base["best"]["adp"])
        rows.append({"app": name, "bound": bound_of(name, app_module(name)), "baseline": base, "explorer": found,
                     "gain_pct": round(gain, 2), "target_met": gain >= TARGET_PCT})
        if not args.json:
            b, e = base["best"], found["best"]
            print(f"{name}: best uniform {b['config']}: ADP {b['adp']:.0f} ({b['lut_equivalents']} LUT-eq, "
                  f"{b['fmax_mhz']:.1f} MHz, {b['cycles']} cycles); explorer: ADP {e['adp']:.0f} "
                  f"({e['lut_equivalents']} LUT-eq, {e['fmax_mhz']:.1f} MHz, {e['cycles']} cycles), "
                  f"{', '.join(f'{k} {v}' for k, v in e['assignment'].items())}; gain {gain:+.1f} % "
                  f"(target {TARGET_PCT:g} %: {'met' if gain >= TARGET_PCT else 'NOT met'})", flush=True)
    if args.json:
        import artefacts
        print(json.dumps(artefacts.json_safe(rows), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
