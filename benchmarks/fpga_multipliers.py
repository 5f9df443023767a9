"""Library multipliers against every EvoApproxLib multiplier of a width, by the project's own flow.

For each EvoApproxLib circuit (by default every unique ``mul{n}u_*.v`` of
``multiplers/{n}x{n}_unsigned/`` on branch ``v2022``; ``--signed`` takes
``mul{n}s_*`` of ``{n}x{n}_signed``; cell netlists ``*_pdk45.v`` left out),
measures its MRED and its ECP5 LUT equivalents (``synth_ecp5 -nodsp
-nowidelut``, LUT4 + 2 x CCU2C, no place and route), then finds the cheapest
library unit of a parameter grid (:func:`candidates`) whose MRED is no
higher, and says whether it is also no larger ("met"). The error metrics come from the tool's own engine
(:func:`approx_units.evaluate.evaluate`): exhaustive at 8 bits, and at 16 bits
over ``--samples 1048576 --seed 0``, so each library unit's MRED is what
``axhls units eval UNIT --width 16 --samples 1048576 --seed 0`` prints and each
circuit's is what ``axhls units survey DIR --kind mul --samples 1048576 --seed 0``
prints (this script measures a circuit as the survey does, by
:func:`approx_units.survey.characterise_file`).
Then come the count of the circuits above ``--min-lut-eq`` (default 20) LUT-eq
that are met, the fewest LUT-eq of either side in each MRED bucket below 5 %
(:data:`BUCKETS`; issue 24's 16-bit target is the library 10 % or more below
in each), and the library's Pareto front.

EvoApproxLib's files are read from a git mirror of ehw-fit/evoapproxlib
given on the command line and copied to a temporary folder; nothing of it is
written into the repository. Without ``--mirror`` (or if the path is not a
mirror), only the library front is printed::

    python benchmarks/fpga_multipliers.py --mirror /path/to/evoapproxlib.git [--widths 8 16] [--signed]

Synthesis results are cached (see approx_units.synth), so a second run takes
seconds; a first run synthesises 167 units at 8 bits (2-8 s each) and
65 at 16 bits (10-40 s each).
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import approx_units                                      # noqa: E402
from approx_units import evaluate, synth                 # noqa: E402
from approx_units.survey import characterise_file       # noqa: E402
from approx_units.fpga_multipliers import edge_sub_products, stagger_pairs  # noqa: E402

REVISION = "v2022"
SAMPLES = 1 << 20
SEED = 0


def candidates(width: int) -> list[tuple[str, dict]]:
    """The library grid: ``(unit, params)``; every ``t`` and ``edge`` of ``lut_mul`` at 8 bits.

    At 16 bits, ``lut_mul`` from ``t = width / 2`` up (below an MRED of 0.001 %, where the
    nearly exact EvoApproxLib circuits lie), ``vctm_mul`` from ``t = width - 4``, ``chain``
    where few rows are left, and the crudest truncations.
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
    return ([("exact_mul", {})] + [("lut_mul", {"t": t}) for t in range(width // 2, 2 * width - 1)]
            + [("lut_mul", {"t": t, "chain": c}) for t in range(width + 6, 2 * width - 1) for c in (3, 5)]
            + [("vctm_mul", {"t": t}) for t in range(width - 4, 2 * width - 1)]
            + [("trunc_mul", {"c": c}) for c in range(2 * width - 4, 2 * width)])


def measured_mred(subject, width: int) -> float:
    """MRED as ``axhls units eval`` prints it: exhaustive at 8 bits, else ``--samples 1048576 --seed 0``."""
    samples = None if width <= 8 else SAMPLES
    return float(evaluate.evaluate(subject, samples=samples, seed=SEED, progress=False).metrics["mred"])


def describe_pairs(width: int) -> str:
    return "exhaustive" if width <= 8 else f"over --samples {SAMPLES} --seed {SEED} (as units eval and units survey)"


def library_mred(name: str, params: dict, width: int, signed: bool) -> float:
    """A library unit's MRED as :func:`measured_mred` gives it (no synthesis)."""
    unit = approx_units.get(name, width=width, signed=signed, **params)
    return measured_mred(evaluate.LibraryUnit(unit.name, unit.width, 0, tuple(sorted(unit.params.items()))), width)


def library_rows(width, signed):
    rows = []
    for name, params in candidates(width):
        unit = approx_units.get(name, width=width, signed=signed, **params)
        mred = library_mred(name, params, width, signed)
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


def evoapproxlib_rows(mirror, width, signed, scratch):
    """Each circuit as ``axhls units survey DIR --kind mul --samples 1048576 --seed 0 --port-o Z --no-timing``
    measures it (:func:`approx_units.survey.characterise_file`; exhaustive at 8 bits, without ``--samples``);
    a circuit it cannot measure keeps its one-line ``error``."""
    rows = []
    for path in circuit_paths(mirror, width, signed):
        text = subprocess.run(["git", "-C", str(mirror), "show", f"{REVISION}:{path}"],
                              capture_output=True, text=True, check=True).stdout
        local = Path(scratch, Path(path).name)
        local.write_text(text)
        # EvoApproxLib calls the result O, and Z in a few circuits (mul8u_2NDH).
        row = characterise_file(local, "mul", signed=signed, target="ecp5", timing=False,
                                samples=None if width <= 8 else SAMPLES, seed=SEED, port_o="Z")
        if "error" in row:
            rows.append({"circuit": row["circuit"], "error": row["error"]})
            print(f"  {row['circuit']}: {row['error']}", file=sys.stderr, flush=True)
            continue
        rows.append({"circuit": row["circuit"], "mred": row["metrics"]["mred"], "lut_eq": row["lut_equivalents"]})
        print(f"  measured {row['circuit']}: MRED {row['mred_pct']:.3f} %, {row['lut_equivalents']} LUT-eq",
              file=sys.stderr, flush=True)
    return rows


def measure(mirror, width, signed):
    """``(EvoApproxLib rows, library rows)`` of one width: every circuit and the whole grid, as :func:`main`."""
    with tempfile.TemporaryDirectory(prefix="axhls-evoapproxlib-") as scratch:
        return evoapproxlib_rows(mirror, width, signed, scratch), library_rows(width, signed)


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


#: The columns of the circuit-by-circuit comparison (:func:`comparison_rows`).
COMPARISON_HEADER = ["EvoApproxLib", "MRED", "LUT-eq", "library unit", "params", "MRED", "LUT-eq", "target"]


def best_match(evo, library):
    """The library row of fewest LUT-eq (then lowest MRED) whose MRED is no higher than ``evo``'s, or ``None``."""
    eligible = [row for row in library if row["mred"] <= evo["mred"]]
    return min(eligible, key=lambda row: (row["lut_eq"], row["mred"]), default=None)


def verdict(evo, best):
    """``met`` when ``best`` (a library row, or ``None``) is no less accurate than ``evo`` and no larger."""
    if best is None or best["mred"] > evo["mred"]:
        return "not met (none as accurate)"
    return "met" if best["lut_eq"] <= evo["lut_eq"] else f"not met (+{best['lut_eq'] - evo['lut_eq']} LUT-eq)"


def comparison_rows(evo_rows, library):
    """One row of :data:`COMPARISON_HEADER` cells per circuit: it, its best match, the verdict."""
    rows = []
    for evo in evo_rows:
        if "error" in evo:
            rows.append([evo["circuit"], f"not measured: {evo['error']}", "", "", "", "", "", ""])
            continue
        best = best_match(evo, library)
        shown = (["(none as accurate)", "", "", ""] if best is None else
                 [best["unit"], params_cell(best["params"]), mred_text(best["mred"]), str(best["lut_eq"])])
        rows.append([evo["circuit"], mred_text(evo["mred"]), str(evo["lut_eq"]), *shown, verdict(evo, best)])
    return rows


def met_counts(evo_rows, library, min_lut_eq):
    """The line counting the circuits met: above ``min_lut_eq`` LUT-eq, in all, and not measured."""
    measured = [evo for evo in evo_rows if "error" not in evo]
    met = [evo for evo in measured if verdict(evo, best_match(evo, library)) == "met"]
    above = [evo for evo in measured if evo["lut_eq"] > min_lut_eq]
    failed = len(evo_rows) - len(measured)
    return (f"met (MRED and LUT-eq no higher): {sum(evo in met for evo in above)} of {len(above)} circuits above "
            f"{min_lut_eq} LUT-eq, {len(met)} of {len(evo_rows)} in all"
            + (f", {failed} not measured" if failed else ""))


def compare(evo_rows, library, min_lut_eq):
    """Print one row per circuit and the count of those above ``min_lut_eq`` that are met."""
    print(markdown(COMPARISON_HEADER, comparison_rows(evo_rows, library)))
    print(met_counts(evo_rows, library, min_lut_eq) + "\n")


#: MRED buckets below 5 %: ``[low, high)`` as fractions; the first holds the exact circuits.
BUCKETS = ((0.0, 1e-5), (1e-5, 1e-4), (1e-4, 1e-3), (1e-3, 5e-3), (5e-3, 1e-2), (1e-2, 2e-2), (2e-2, 5e-2))
#: Issue 24's 16-bit target: the library's fewest LUT-eq this far below EvoApproxLib's in each bucket.
BUCKET_TARGET = 0.10
#: The columns of the bucket table (:func:`bucket_rows`).
BUCKET_HEADER = ["MRED bucket", "EvoApproxLib circuits", "fewest LUT-eq", "circuit (MRED)", "library units",
                 "fewest LUT-eq", "unit (MRED)", "below"]


def bucket_name(low, high):
    return "exact and below 0.001 %" if low == 0 else f"{_bound(low)}-{_bound(high)} %"


def below(fewest_evo, fewest_ours):
    """How far the library's fewest LUT-eq lies below EvoApproxLib's, as the bucket table shows it."""
    if fewest_evo is None or fewest_ours is None:
        return "-"
    return f"{100 * (fewest_evo - fewest_ours) / fewest_evo:.1f} %"


def library_label(row):
    """A library row as the bucket table names it: ``lut_mul t=17 (0.088 %)``."""
    return f"{row['unit']} {params_cell(row['params'])} ({mred_text(row['mred'])})"


def bucket_rows(evo_rows, library):
    """Per MRED bucket (:data:`BUCKETS`), EvoApproxLib's fewest LUT-eq against the library's fewest, each
    among its own circuits whose MRED lies in the bucket, and how far below the library's is."""
    rows = []
    for low, high in BUCKETS:
        evo = [row for row in evo_rows if "error" not in row and low <= row["mred"] < high]
        ours = [row for row in library if low <= row["mred"] < high]
        cells = [bucket_name(low, high)]
        for side, label in ((evo, lambda row: f"{row['circuit']} ({mred_text(row['mred'])})"), (ours, library_label)):
            best = min(side, key=lambda row: (row["lut_eq"], row["mred"]), default=None)
            cells += [str(len(side)), "-" if best is None else str(best["lut_eq"]), "-" if best is None else label(best)]
        cells.append(below(min((row["lut_eq"] for row in evo), default=None),
                           min((row["lut_eq"] for row in ours), default=None)))
        rows.append(cells)
    return rows


def bucket_table(evo_rows, library):
    """Print :func:`bucket_rows` and how many buckets meet :data:`BUCKET_TARGET`."""
    print(f"Fewest LUT-eq per MRED bucket (each side's circuits with MRED in the bucket; target: the "
          f"library {100 * BUCKET_TARGET:.0f} % or more below):\n")
    rows = bucket_rows(evo_rows, library)
    print(markdown(BUCKET_HEADER, rows))
    compared = [row for row in rows if row[-1] != "-"]
    met = sum(float(row[-1].removesuffix(" %")) >= 100 * BUCKET_TARGET for row in compared)
    print(f"buckets where the library is {100 * BUCKET_TARGET:.0f} % or more below: {met} of {len(compared)} "
          f"with circuits on both sides ({len(BUCKETS)} buckets)\n")


def markdown(header, rows):
    """A Markdown table of ``header`` and ``rows`` (lists of cells), each line ending in a newline."""
    lines = ["| " + " | ".join(line) + " |\n" for line in [header, *rows]]
    return lines[0] + "|" + "|".join("---" for _ in header) + "|\n" + "".join(lines[1:])


def _bound(fraction):
    return f"{100 * fraction:g}"


def mred_text(fraction):
    """A MRED in percent: three decimals, or two significant digits below 0.01 %."""
    value = 100 * fraction
    if value == 0 or value >= 0.01:
        return f"{value:.3f} %"
    return f"{value:.{1 - math.floor(math.log10(value))}f} %"


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
            kind = "signed" if args.signed else "unsigned"
            print(f"\n## {width} x {width} {kind}, ECP5 (synth_ecp5 -nodsp -nowidelut), "
                  f"LUT-eq = LUT4 + 2 x CCU2C, MRED {describe_pairs(width)}\n")
            library = library_rows(width, args.signed)
            if have_mirror:
                evo_rows = evoapproxlib_rows(args.mirror, width, args.signed, scratch)
                compare(evo_rows, library, args.min_lut_eq)
                bucket_table(evo_rows, library)
            print(f"Library Pareto front ({len(library)} units measured):\n")
            print("| library unit | params | MRED | LUT-eq | LUT4 | CCU2C |")
            print("|---|---|---|---|---|---|")
            for row in pareto_front(library):
                print(f"| {row['unit']} | {params_cell(row['params'])} | {mred_text(row['mred'])} | "
                      f"{row['lut_eq']} | {row['luts']} | {row['carry']} |")


def params_cell(params):
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "-"


if __name__ == "__main__":
    main()
