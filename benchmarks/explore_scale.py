"""The explorer at autoAx's scale (issue 23, "Scale, as autoAx"): the generic 3 x 3 Gaussian filter of
``examples/apps/gaussian.py`` (9 ``*`` and 8 ``+``, 17 approximable operations), every multiplier choosing
among the library's default multipliers and EvoApproxLib's 8 x 8 unsigned circuits (``--verilog``), every
adder among twelve library adders; then the cheapest front points verified by whole-kernel synthesis,
placement and routing (median Fmax of seeds 1-3).

    python benchmarks/explore_scale.py --mirror /path/to/evoapproxlib.git [--evaluations 6000]
        [--population 60] [--seed 1] [--verify 10] [--cache-dir DIR] [--store FILE.sqlite] [--json]

EvoApproxLib's files are read from a git mirror of ehw-fit/evoapproxlib (branch ``v2022``) into a
temporary folder, never into the repository.  Without ``--mirror`` the multipliers are the library's
only (an 8 x 8 product takes 11 of the 16 defaults: ``lut_mul`` at t=8 and t=12 only).  The script prints
the machine's load, the space, the wall time and each phase's (compiled models, cost model, search,
verification), the number of evaluations, and the verified front.
``--cache-dir`` (a fresh folder) makes every synthesis run, as a first run on a new machine would.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: EvoApproxLib v2022 8 x 8 unsigned multipliers (folder under multiplers/8x8_unsigned/, name): a spread of
#: accuracy and size from its Pareto sets, from 7 gates (mul8u_17MJ) to about 320 (mul8u_12KA).
CIRCUITS = (("pareto_pwr_mre", "mul8u_2NDH"), ("pareto_pwr_mae", "mul8u_GTR"), ("pareto_pwr_mae", "mul8u_DG8"),
            ("pareto_pwr_mre", "mul8u_ZDF"), ("pareto_pwr_ep", "mul8u_12KA"), ("pareto_pwr_mae", "mul8u_L93"),
            ("pareto_pwr_mse", "mul8u_NLX"), ("pareto_pwr_mre", "mul8u_R36"), ("pareto_pwr_mse", "mul8u_LK8"),
            ("pareto_pwr_mre", "mul8u_12YX"))
REVISION = "v2022"

#: The adders' candidates: LOA and truncation at four points of their grids, ETA-I and HOAANED at two.
ADDERS = ("loa(l=4),loa(l=6),loa(l=8),loa(l=10),trunc_add(l=4),trunc_add(l=6),trunc_add(l=8),trunc_add(l=10),"
          "eta1(l=4),eta1(l=8),hoaaned(l=4),hoaaned(l=8)")
BOUND = "psnr_db>=35"


def extract(mirror: str, folder: Path) -> list[str]:
    """Write :data:`CIRCUITS` from the mirror into ``folder``; their names."""
    names = []
    for subfolder, name in CIRCUITS:
        text = subprocess.run(["git", "-C", mirror, "show", f"{REVISION}:multiplers/8x8_unsigned/{subfolder}/{name}.v"],
                              capture_output=True, text=True, check=True).stdout
        (folder / f"{name}.v").write_text(text)
        names.append(name)
    return names


def simulate(kernel, args):
    """One call in Amaranth's simulator against its Python run, as ``axhls explore --verify`` simulates it."""
    import sim
    return sim.run(kernel, args, max_cycles=2_000_000, golden="python")


def _unit_text(row: dict) -> str:
    """``drum(k=4)``, or ``verilog:mul8u_2NDH`` for a circuit (its file is a temporary one)."""
    if row["unit"] == "verilog":
        return f"verilog:{Path(row['params']['file']).stem}"
    shown = ",".join(f"{k}={v}" for k, v in row["params"].items())
    return f"{row['unit']}({shown})" if shown else row["unit"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", help="a git mirror of ehw-fit/evoapproxlib (EvoApproxLib's multipliers)")
    parser.add_argument("--evaluations", type=int, default=6000)
    parser.add_argument("--population", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verify", type=int, default=10, help="front points verified (the cheapest)")
    parser.add_argument("--cache-dir", help="synthesis cache (default ~/.cache/axhls)")
    parser.add_argument("--store", help="the SQLite store of evaluations (default: in memory)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    import hls.explore as explore
    from approx_units.synth import ResultCache
    from examples.apps import gaussian

    load = os.getloadavg()
    if not args.json:       # --json prints one JSON object, which holds the load average
        print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)")
    began = time.perf_counter()
    cache = ResultCache(args.cache_dir) if args.cache_dir else None
    with tempfile.TemporaryDirectory(prefix="explore-scale-") as scratch:
        circuits = extract(args.mirror, Path(scratch)) if args.mirror else []
        result = explore.explore(gaussian.KERNELS, gaussian.default_input(), gaussian.quality, run=gaussian.run,
                                 bound=BOUND, kinds=("mul", "add"), candidates=f"add={ADDERS}",
                                 verilog=scratch if circuits else None, evaluations=args.evaluations,
                                 population=args.population, seed=args.seed, store=args.store, cache=cache,
                                 progress=None)
        searched = time.perf_counter()
        verified = result.verify(args.verify, simulate=simulate, cache=cache)
        finished = time.perf_counter()
    sizes = result.space.sizes
    phases = {**result.timings, "verify_s": round(finished - searched, 3)}
    summary = {"load_average": load, "bound": BOUND, "sites": len(sizes), "choices_per_site": sizes,
               "assignments": result.space.size, "evoapproxlib_circuits": circuits,
               "evaluations": len(result.points), "evaluated_now": result.evaluated, "from_store": result.cached,
               "front_points": len(result.front), "verified_points": len(verified),
               "verified_front_points": len(result.verified_front or []),
               "wall_s": round(finished - began, 1), "phases_s": phases,
               "front": [{"quality": p["quality"], "lut_equivalents_estimate": p["lut_equivalents"],
                          "verified": p.get("verified"),
                          "assignment": {f"line {r['line']} {r['text']}": _unit_text(r)
                                         for r in result.assignment(p) if r["unit"] != "exact"}}
                         for p in result.front]}
    if args.json:
        print(json.dumps(summary, indent=2, sort_keys=True, default=str))
        return 0
    print(f"space: {len(sizes)} operations ({', '.join(str(s) for s in sizes)} choices, exact included), "
          f"{result.space.size:.3g} assignments; {len(circuits)} EvoApproxLib circuits among the multipliers")
    print(f"evaluations: {len(result.points)} ({result.evaluated} run, {result.cached} from the store); "
          f"front {len(result.front)} points; {len(verified)} verified")
    print("phases: " + ", ".join(f"{name} {value:.1f} s" for name, value in phases.items()))
    print(f"wall time: {finished - began:.1f} s ({(finished - began) / 60:.1f} min)")
    print(f"estimated front ({len(result.front)} points; the {len(verified)} cheapest verified: simulated against "
          f"their Python runs, synthesised, placed and routed, Fmax the median of seeds 1-3):")
    print(f"{'#':>3} {'PSNR dB':>8} {'LUT-eq est':>10} {'LUT-eq':>7} {'error %':>8} {'FF':>6} {'Fmax MHz':>8} "
          f"{'cycles':>7} {'ADP':>9} {'match':>5}")
    for n, point in enumerate(result.front):
        v = point.get("verified")
        measured = (f"{v['lut_equivalents']:>7} {v['lut_error_pct']:>+8.1f} {v['ffs']:>6} {v['fmax_mhz']:>8.1f} "
                    f"{v['cycles']:>7} {v['adp']:>9.0f} {str(v['match']):>5}" if v else "")
        print(f"{n:>3} {point['quality']:>8.2f} {point['lut_equivalents']:>10.0f} {measured}")
    for n, row in enumerate(summary["front"][:len(verified)]):
        print(f"  [{n}] " + "; ".join(f"{where} -> {unit}" for where, unit in row["assignment"].items()))
    if result.verified_front is not None:
        print(f"verified front (non-dominated by measured LUT-eq): {len(result.verified_front)} points")
    errors = sorted(abs(p["verified"]["lut_error_pct"]) for p in verified)
    if errors:
        within = sum(e <= 10 for e in errors)
        print(f"estimate error |%| on the verified points: median {errors[len(errors) // 2]:.1f}, "
              f"max {errors[-1]:.1f}; within 10 %: {within} of {len(errors)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
