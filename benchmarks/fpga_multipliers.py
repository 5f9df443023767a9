"""Library multipliers against every EvoApproxLib multiplier of a width, by the project's own flow.

For each EvoApproxLib circuit (by default every unique ``mul{n}u_*.v`` of
``multiplers/{n}x{n}_unsigned/`` on branch ``v2022``; ``--signed`` takes
``mul{n}s_*`` of ``{n}x{n}_signed``; cell netlists ``*_pdk45.v`` left out),
measures its MRED and its ECP5 LUT equivalents (``synth_ecp5 -nodsp
-nowidelut``, LUT4 + 2 x CCU2C, no place and route), then finds the cheapest
library unit of a parameter grid (:func:`candidates`) whose MRED is no
higher, and says whether it is also no larger ("met"). MRED is exhaustive at
8 bits and over the same 2^20 uniform random pairs (seed 0) for every
circuit at 16 bits. The last lines count the circuits above ``--min-lut-eq``
(default 20) LUT-eq that are met, and print the library's Pareto front.

EvoApproxLib's files are read from a git mirror of ehw-fit/evoapproxlib
given on the command line and copied to a temporary folder; nothing of it is
written into the repository. Without ``--mirror`` (or if the path is not a
mirror), only the library front is printed::

    python benchmarks/fpga_multipliers.py --mirror /path/to/evoapproxlib.git [--widths 8 16] [--signed]

Synthesis results are cached (see approx_units.synth), so a second run takes
seconds; a first run synthesises about 170 units at 8 bits (2-8 s each) and
about 40 at 16 bits (10-40 s each).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import approx_units                                      # noqa: E402
from approx_units import metrics, synth                  # noqa: E402
from approx_units.fpga_multipliers import edge_sub_products, stagger_pairs  # noqa: E402

REVISION = "v2022"
SAMPLES = 1 << 20
SEED = 0


def candidates(width: int) -> list[tuple[str, dict]]:
    """The library grid: ``(unit, params)``; every ``t`` and ``edge`` of ``lut_mul`` at 8 bits.

    At 16 bits, ``t`` from ``width - 4`` up, where the EvoApproxLib circuits lie,
    ``chain`` where few rows are left, and the crudest truncations.
    """
    if width <= 8:
        grid = [("exact_mul", {}), ("mitchell_refined", {}), ("mitchell", {})]
        grid += [("drum", {"k": k}) for k in range(2, width + 1)]
        grid += [("iterlog", {"corrections": c}) for c in range(3)]
        grid += [("trunc_mul", {"c": c}) for c in range(2 * width)]
        # chain only matters where few, narrow rows are left (t >= 8 at 8 bits).
        grid += [("lut_mul", {"t": t, "edge": e, "chain": c}) for t in range(2 * width)
                 for e in range(len(edge_sub_products(width, width, t)) + 1)
                 for c in ((0,) if t < width else (0, 3, 5, 8))]
        grid += [("vctm_mul", {"t": t, "stagger": k}) for t in range(2 * width)
                 for k in range(min(2, len(stagger_pairs(t, width))) + 1)]
        return grid
    # 16 bits: the carry-chain units over the upper half of t, where the EvoApproxLib circuits lie.
    return ([("exact_mul", {})] + [("lut_mul", {"t": t}) for t in range(width - 4, 2 * width - 1)]
            + [("lut_mul", {"t": t, "chain": c}) for t in range(width + 6, 2 * width - 1) for c in (3, 5)]
            + [("vctm_mul", {"t": t}) for t in range(width - 4, 2 * width - 1)]
            + [("trunc_mul", {"c": c}) for c in range(2 * width - 4, 2 * width)])


def operands(width):
    """The operand pairs MRED is measured over: every pair at 8 bits, 2^20 random ones above."""
    if width <= 8:
        a, b = np.meshgrid(np.arange(1 << width), np.arange(1 << width), indexing="ij")
        return a.ravel(), b.ravel(), "exhaustive"
    rng = np.random.default_rng(SEED)
    return (rng.integers(0, 1 << width, SAMPLES), rng.integers(0, 1 << width, SAMPLES),
            f"{SAMPLES} random pairs, seed {SEED}")


def signed_operands(a, b, width):
    """The same pairs as two's complement values."""
    half = 1 << (width - 1)
    return a - half, b - half


def library_rows(width, signed, a, b):
    rows = []
    for name, params in candidates(width):
        unit = approx_units.get(name, width=width, signed=signed, **params)
        mred = metrics.accumulate(unit, a, b).mred
        report = synth.synthesize_unit(unit, timing=False)
        rows.append({"unit": name, "params": params, "mred": mred, "lut_eq": report.lut_equivalents,
                     "luts": report.luts, "carry": report.carry})
        print(f"  measured {name} {params}: MRED {100 * mred:.3f} %, {report.lut_equivalents} LUT-eq",
              file=sys.stderr, flush=True)
    return rows


def circuit_paths(mirror, width, signed):
    """Every unique circuit of the width (first path of each name, sorted by name)."""
    folder = f"multiplers/{width}x{width}_{'signed' if signed else 'unsigned'}/"
    listing = subprocess.run(["git", "-C", str(mirror), "ls-tree", "-r", "--name-only", REVISION, folder],
                             capture_output=True, text=True, check=True).stdout.split()
    pattern = re.compile(rf"mul{width}{'s' if signed else 'u'}_\w+\.v$")
    first = {}
    for path in sorted(listing):
        name = Path(path).name
        if pattern.fullmatch(name) and not name.endswith("_pdk45.v"):
            first.setdefault(name, path)
    return [first[name] for name in sorted(first)]


def _output_port(text, top):
    """The output port's name (EvoApproxLib uses ``O``, a few circuits ``Z``)."""
    header = re.search(rf"module\s+{top}\s*\(([^)]*)\)", text)
    # Each item is a name, or a declaration whose last word is the name (input [15:0] A).
    ports = [re.findall(r"\w+", item)[-1] for item in header.group(1).split(",") if item.strip()] \
        if header else []
    return next((p for p in ports if p not in ("A", "B")), "O")


def evoapproxlib_rows(mirror, width, signed, a, b, scratch):
    from approx_units.verilog_eval import load_verilog
    rows = []
    for path in circuit_paths(mirror, width, signed):
        text = subprocess.run(["git", "-C", str(mirror), "show", f"{REVISION}:{path}"],
                              capture_output=True, text=True, check=True).stdout
        top = Path(path).stem
        local = Path(scratch, f"{top}.v")
        local.write_text(text)
        netlist = load_verilog(local, top, "mul", width, signed=signed, port_o=_output_port(text, top))
        mred = metrics.accumulate(netlist, a, b).mred
        report = synth.synthesize_verilog(text, top, timing=False)
        rows.append({"circuit": top, "mred": mred, "lut_eq": report.lut_equivalents})
        print(f"  measured {top}: MRED {100 * mred:.3f} %, {report.lut_equivalents} LUT-eq",
              file=sys.stderr, flush=True)
    return rows


def pareto_front(rows):
    """The rows no other row beats on both MRED and LUT-eq, by MRED."""
    front, best = [], None
    for row in sorted(rows, key=lambda row: (row["mred"], row["lut_eq"])):
        if best is None or row["lut_eq"] < best:
            front.append(row)
            best = row["lut_eq"]
    return front


def is_mirror(path):
    if path is None:
        return False
    probe = subprocess.run(["git", "-C", str(path), "rev-parse", "--verify", "-q", REVISION],
                           capture_output=True, text=True)
    return probe.returncode == 0


def compare(evo_rows, library, min_lut_eq):
    """Print one row per circuit and the count of those above ``min_lut_eq`` that are met."""
    print("| EvoApproxLib | MRED | LUT-eq | library unit | params | MRED | LUT-eq | target |")
    print("|---|---|---|---|---|---|---|---|")
    met = above = met_above = 0
    for evo in evo_rows:
        eligible = [row for row in library if row["mred"] <= evo["mred"]]
        best = min(eligible, key=lambda row: (row["lut_eq"], row["mred"]), default=None)
        ok = best is not None and best["lut_eq"] <= evo["lut_eq"]
        met += ok
        if evo["lut_eq"] > min_lut_eq:
            above += 1
            met_above += ok
        verdict = "met" if ok else ("not met (none as accurate)" if best is None
                                    else f"not met (+{best['lut_eq'] - evo['lut_eq']} LUT-eq)")
        shown = ("(none as accurate) | | |" if best is None else
                 f"{best['unit']} | {_params(best['params'])} | {100 * best['mred']:.3f} % | {best['lut_eq']} |")
        print(f"| {evo['circuit']} | {100 * evo['mred']:.3f} % | {evo['lut_eq']} | {shown} {verdict} |")
    print(f"\nmet (MRED and LUT-eq no higher): {met_above} of {above} circuits above {min_lut_eq} LUT-eq, "
          f"{met} of {len(evo_rows)} in all\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, help="git mirror of ehw-fit/evoapproxlib")
    parser.add_argument("--widths", type=int, nargs="+", default=[8, 16], choices=[8, 16])
    parser.add_argument("--signed", action="store_true", help="the signed circuits and signed library units")
    parser.add_argument("--min-lut-eq", type=int, default=20,
                        help="count the circuits above this many LUT-eq (default 20)")
    args = parser.parse_args(argv)
    have_mirror = is_mirror(args.mirror)
    if not have_mirror:
        print(f"EvoApproxLib mirror {'not given' if args.mirror is None else f'{args.mirror} not found'}: "
              "skipping its rows (pass --mirror PATH to a git mirror of ehw-fit/evoapproxlib)")
    with tempfile.TemporaryDirectory(prefix="axhls-evoapproxlib-") as scratch:
        for width in args.widths:
            a, b, how = operands(width)
            if args.signed:
                a, b = signed_operands(a, b, width)
            kind = "signed" if args.signed else "unsigned"
            print(f"\n## {width} x {width} {kind}, ECP5 (synth_ecp5 -nodsp -nowidelut), "
                  f"LUT-eq = LUT4 + 2 x CCU2C, MRED {how}\n")
            library = library_rows(width, args.signed, a, b)
            if have_mirror:
                compare(evoapproxlib_rows(args.mirror, width, args.signed, a, b, scratch), library,
                        args.min_lut_eq)
            print(f"Library Pareto front ({len(library)} units measured):\n")
            print("| library unit | params | MRED | LUT-eq | LUT4 | CCU2C |")
            print("|---|---|---|---|---|---|")
            for row in pareto_front(library):
                print(f"| {row['unit']} | {_params(row['params'])} | {100 * row['mred']:.3f} % | "
                      f"{row['lut_eq']} | {row['luts']} | {row['carry']} |")


def _params(params):
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "-"


if __name__ == "__main__":
    main()
