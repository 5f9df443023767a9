"""The issue-13 area targets: library multipliers against EvoApproxLib, by the project's own flow.

For each EvoApproxLib multiplier in :data:`TARGETS`, measures its MRED and its
ECP5 LUT equivalents (``synth_ecp5 -nodsp -nowidelut``, LUT4 + 2 x CCU2C,
no place and route), then finds the cheapest library unit among the
candidates whose MRED is no higher, and says whether it is also no larger.
MRED is exhaustive at 8 bits and over the same 2^20 uniform random pairs
(seed 0) for every circuit at 16 bits.

EvoApproxLib's files are read from a git mirror of ehw-fit/evoapproxlib
given on the command line (its ``v2022`` branch holds every circuit used
here) and copied to a temporary folder; nothing of it is written into the
repository. Without ``--mirror`` (or if the path is not a mirror), the
EvoApproxLib rows are skipped with a message and only the library front is
printed::

    python benchmarks/fpga_multipliers.py --mirror /path/to/evoapproxlib.git [--widths 8 16]

Synthesis results are cached (see approx_units.synth), so a second run takes
seconds; a first run synthesises about 80 units (8 bits: 2-8 s each, 16 bits:
10-40 s each).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import approx_units                                      # noqa: E402
from approx_units import metrics, synth                  # noqa: E402
from approx_units.fpga_multipliers import stagger_pairs  # noqa: E402

#: EvoApproxLib circuits compared against: (width, git revision, path in the repository).
TARGETS = {
    8: [("v2022", "multiplers/8x8_unsigned/pareto_pwr_wce/mul8u_R92.v"),
        ("v2022", "multiplers/8x8_unsigned/pareto_pwr_mae/mul8u_GTR.v"),
        ("v2022", "multiplers/8x8_unsigned/pareto_pwr_mae/mul8u_L93.v"),
        ("v2022", "multiplers/8x8_unsigned/pareto_pwr_wce/mul8u_17C8.v")],
    16: [("v2022", "multiplers/16x16_unsigned/pareto_pwr_mre/mul16u_5A2.v"),
         ("v2022", "multiplers/16x16_unsigned/pareto_pwr_mre/mul16u_1UG.v"),
         ("v2022", "multiplers/16x16_unsigned/pareto_pwr_mse/mul16u_G88.v"),
         ("v2022", "multiplers/16x16_unsigned/pareto_pwr_mre/mul16u_HDT.v")],
}

#: Library candidates per width: (unit, params).
CANDIDATES = {
    8: [("exact_mul", {}), ("mitchell_refined", {}), ("drum", {"k": 6}), ("mitchell", {}),
        ("trunc_mul", {"c": 8})]
       + [("lut_mul", {"t": t}) for t in range(4, 12)]
       + [("vctm_mul", {"t": t, "stagger": k}) for t in range(4, 12)
          for k in range(min(2, len(stagger_pairs(t, 8))) + 1)],
    16: [(name, {"t": t}) for name in ("lut_mul", "vctm_mul") for t in range(17, 27)],
}

SAMPLES = 1 << 20
SEED = 0


def operands(width):
    """The operand pairs MRED is measured over: every pair at 8 bits, 2^20 random ones above."""
    if width <= 8:
        a, b = np.meshgrid(np.arange(1 << width), np.arange(1 << width), indexing="ij")
        return a.ravel(), b.ravel(), "exhaustive"
    rng = np.random.default_rng(SEED)
    return (rng.integers(0, 1 << width, SAMPLES), rng.integers(0, 1 << width, SAMPLES),
            f"{SAMPLES} random pairs, seed {SEED}")


def library_rows(width, a, b):
    rows = []
    for name, params in CANDIDATES[width]:
        unit = approx_units.get(name, width=width, **params)
        mred = metrics.accumulate(unit, a, b).mred
        report = synth.synthesize_unit(unit, timing=False)
        rows.append({"unit": name, "params": params, "mred": mred, "lut_eq": report.lut_equivalents,
                     "luts": report.luts, "carry": report.carry})
        print(f"  measured {name} {params}: MRED {100 * mred:.3f} %, {report.lut_equivalents} LUT-eq",
              file=sys.stderr, flush=True)
    return rows


def evoapproxlib_rows(mirror, width, a, b, scratch):
    from approx_units.verilog_eval import load_verilog
    rows = []
    for revision, path in TARGETS[width]:
        text = subprocess.run(["git", "-C", str(mirror), "show", f"{revision}:{path}"],
                              capture_output=True, text=True, check=True).stdout
        top = Path(path).stem
        local = Path(scratch, f"{top}.v")
        local.write_text(text)
        netlist = load_verilog(local, top, "mul", width)
        mred = metrics.accumulate(netlist, a, b).mred
        report = synth.synthesize_verilog(text, top, timing=False)
        rows.append({"circuit": top, "mred": mred, "lut_eq": report.lut_equivalents})
    return rows


def is_mirror(path):
    if path is None:
        return False
    probe = subprocess.run(["git", "-C", str(path), "rev-parse", "--verify", "-q", "v2022"],
                           capture_output=True, text=True)
    return probe.returncode == 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, help="git mirror of ehw-fit/evoapproxlib")
    parser.add_argument("--widths", type=int, nargs="+", default=[8, 16], choices=sorted(TARGETS))
    args = parser.parse_args(argv)
    have_mirror = is_mirror(args.mirror)
    if not have_mirror:
        print(f"EvoApproxLib mirror {'not given' if args.mirror is None else f'{args.mirror} not found'}: "
              "skipping its rows (pass --mirror PATH to a git mirror of ehw-fit/evoapproxlib)")
    with tempfile.TemporaryDirectory(prefix="axhls-evoapproxlib-") as scratch:
        for width in args.widths:
            a, b = operands(width)[:2]
            print(f"\n## {width} x {width} unsigned, ECP5 (synth_ecp5 -nodsp -nowidelut), "
                  f"LUT-eq = LUT4 + 2 x CCU2C, MRED {operands(width)[2]}\n")
            library = library_rows(width, a, b)
            if have_mirror:
                print("| EvoApproxLib | MRED | LUT-eq | library unit | params | MRED | LUT-eq | target |")
                print("|---|---|---|---|---|---|---|---|")
                for evo in evoapproxlib_rows(args.mirror, width, a, b, scratch):
                    eligible = [row for row in library if row["mred"] <= evo["mred"]]
                    best = min(eligible, key=lambda row: (row["lut_eq"], row["mred"]), default=None)
                    if best is None:
                        print(f"| {evo['circuit']} | {100 * evo['mred']:.3f} % | {evo['lut_eq']} | "
                              f"(none as accurate) | | | | not met |")
                        continue
                    met = "met" if best["lut_eq"] <= evo["lut_eq"] else \
                        f"not met (+{best['lut_eq'] - evo['lut_eq']} LUT-eq)"
                    print(f"| {evo['circuit']} | {100 * evo['mred']:.3f} % | {evo['lut_eq']} | "
                          f"{best['unit']} | {_params(best['params'])} | {100 * best['mred']:.3f} % | "
                          f"{best['lut_eq']} | {met} |")
                print()
            print("| library unit | params | MRED | LUT-eq | LUT4 | CCU2C |")
            print("|---|---|---|---|---|---|")
            for row in sorted(library, key=lambda row: row["mred"]):
                print(f"| {row['unit']} | {_params(row['params'])} | {100 * row['mred']:.3f} % | "
                      f"{row['lut_eq']} | {row['luts']} | {row['carry']} |")


def _params(params):
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "-"


if __name__ == "__main__":
    main()
