"""The tables of figures in docs/units.md, each printed as Markdown by the command named above it.

    python benchmarks/docs_figures.py NAME            # every figure of table NAME
    python benchmarks/docs_figures.py NAME --cheap    # only the 8-bit error figures (stdin: the table)

A table in the docs is marked ``<!-- figures: python benchmarks/docs_figures.py NAME -->``;
``python benchmarks/docs_samples.py --figures`` rewrites every marked table from
its command, and ``tests/test_readme.py`` reruns each one with ``--cheap``.
The figures are:

* 8-bit error metrics: exhaustive over all 2^16 pairs (cheap, rerun by the tests);
* 16- and 32-bit error metrics: over ``--samples 1048576 --seed 0`` of the error
  engine, exactly what ``axhls units eval UNIT --width 16 --samples 1048576 --seed 0``
  prints (``SAMPLES``, ``SEED``);
* LUT-eq: ECP5 ``synth_ecp5 -nodsp -nowidelut`` without place and route, LUT4 +
  2 x CCU2C, as ``axhls units area`` (from the synthesis cache when it has them);

The comparison with EvoApproxLib's circuits (``evoapproxlib-*``) is
``benchmarks/fpga_multipliers.py``'s, table for table: the library's whole
parameter grid against every circuit of the branch, read from the git mirror
that ``$EVOAPPROXLIB`` names (needed for those tables, except with ``--cheap``).
Their cheap figures are the library's 8-bit MREDs; the verdict (``target``) and
the bucket's ``below`` are recomputed from the cells in every mode.

With ``--cheap`` the table as the docs have it is read from stdin: the cheap
figures are computed again, the others (and which library unit a row names,
which takes synthesis to choose) are copied from it, and the result is printed,
so the test compares the two.  Units are taken from the registry, so when a unit
changes, ``docs_samples.py --figures`` regenerates these tables in one command.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import approx_units                                    # noqa: E402
from approx_units import evaluate, synth               # noqa: E402
import fpga_multipliers                                # noqa: E402  (benchmarks/, this script's folder)

SAMPLES = 1 << 20
SEED = 0


class Table:
    """Rows of cells; in ``--cheap`` mode the cells that take synthesis, sampling or the mirror
    come from the table the docs hold."""

    def __init__(self, header: list[str], cheap: bool, current: list[list[str]] | None):
        self.header, self.cheap, self.current, self.rows = header, cheap, current, []
        if cheap and (current is None or current[0] != header):
            raise SystemExit("docs_figures: --cheap needs the table as the docs have it on stdin, with the header "
                             + " | ".join(header))

    def old(self, column: int) -> str:
        """The docs' cell of the row being built, column ``column``."""
        row = len(self.rows) + 1
        if row >= len(self.current):
            raise SystemExit(f"docs_figures: the docs' table has {len(self.current) - 1} rows, the figure more; "
                             "regenerate it with python benchmarks/docs_samples.py --figures")
        return self.current[row][column]

    def cell(self, column: int, compute) -> str:
        """``compute()``, or in ``--cheap`` mode the docs' cell (not computed)."""
        return self.old(column) if self.cheap else compute()

    def add(self, cells: list[str]) -> None:
        self.rows.append(cells)

    def markdown(self) -> str:
        if self.cheap and len(self.current) != len(self.rows) + 1:
            raise SystemExit(f"docs_figures: the docs' table has {len(self.current) - 1} rows, the figure "
                             f"{len(self.rows)}; regenerate it with python benchmarks/docs_samples.py --figures")
        return fpga_multipliers.markdown(self.header, self.rows)


def parse_table(text: str) -> list[list[str]]:
    """The cells of a Markdown table, its separator line left out."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in text.splitlines() if line.strip()]
    return [row for row in rows if not all(set(cell) <= set("-: ") for cell in row)]


def mred(subject) -> float:
    """MRED: exhaustive up to 8 x 8 bits, else over SAMPLES pairs with SEED."""
    exhaustive = subject.width <= 8
    result = evaluate.evaluate(subject, exhaustive=exhaustive, samples=None if exhaustive else SAMPLES,
                               seed=SEED, progress=False)
    return float(result.metrics["mred"])


def library(name: str, width: int, **params):
    return evaluate.LibraryUnit(name, width, 0, tuple(sorted(approx_units.get(name, width=width, **params)
                                                              .params.items())))


def lut_eq(name: str, width: int, **params) -> int:
    return synth.synthesize_unit(approx_units.get(name, width=width, **params), "ecp5", timing=False).lut_equivalents


def percent(value: float, digits: int = 3) -> str:
    return f"{100 * value:.{digits}f} %"


def params_text(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def mitchell_mred(table_cheap: bool, current):
    """MRED of the (refined) Mitchell multipliers and dividers at 8, 16 and 32 bits."""
    table = Table(["unit", "8 bits (exhaustive)", "16 bits", "32 bits", "target"], table_cheap, current)
    targets = {"mitchell": "about 3.8 % (literature)", "mitchell_refined": "<= 0.6 % (RAPID)",
               "mitchell_div": "about 4 % (literature)", "mitchell_div_refined": "<= 0.8 % (SIMDive)"}
    for name, target in targets.items():
        table.add([f"`{name}`", percent(mred(library(name, 8)), 2),
                   table.cell(2, lambda: percent(mred(library(name, 16)), 2)),
                   table.cell(3, lambda: percent(mred(library(name, 32)), 2)), target])
    return table


#: Library units compared at 8 bits in docs/units.md ("The FPGA multipliers"): (unit, params).
FPGA_8BIT = [("exact_mul", {}), ("trunc_mul", {"c": 0}), ("lut_mul", {"t": 0}), ("vctm_mul", {"t": 0}),
             ("mitchell_refined", {}), ("drum", {"k": 6}), ("mitchell", {}), ("trunc_mul", {"c": 8})] \
    + [("lut_mul", {"t": t}) for t in range(1, 12)] \
    + [("lut_mul", {"t": 5, "edge": 1}), ("lut_mul", {"t": 8, "edge": 1}), ("lut_mul", {"t": 8, "edge": 2}),
       ("lut_mul", {"t": 8, "edge": 2, "chain": 3}), ("lut_mul", {"t": 9, "chain": 3}),
       ("lut_mul", {"t": 10, "chain": 3}), ("lut_mul", {"t": 10, "chain": 8}), ("lut_mul", {"t": 11, "chain": 5})] \
    + [("vctm_mul", {"t": t, "stagger": k}) for t in (5, 6, 7) for k in (0, 1)]


def fpga_8bit(cheap: bool, current):
    """MRED and LUT-eq of the units the FPGA-multiplier section compares, at 8 bits."""
    table = Table(["unit", "params", "MRED (exhaustive)", "LUT-eq"], cheap, current)
    for name, params in FPGA_8BIT:
        table.add([f"`{name}`", params_text(params) or "defaults", percent(mred(library(name, 8, **params))),
                   table.cell(3, lambda: str(lut_eq(name, 8, **params)))])
    return table


def _mirror() -> str:
    """``$EVOAPPROXLIB``, a git mirror of ehw-fit/evoapproxlib with branch ``v2022``."""
    path = os.environ.get("EVOAPPROXLIB")
    if not fpga_multipliers.is_mirror(path):
        raise SystemExit("docs_figures: the EvoApproxLib tables need EVOAPPROXLIB set to a git mirror of "
                         f"ehw-fit/evoapproxlib with branch {fpga_multipliers.REVISION}"
                         + (f" ({path} is not one)" if path else ""))
    return path


def _fraction(text: str) -> float:
    """``"0.163 %"`` as the fraction 0.00163."""
    return float(text.removesuffix(" %")) / 100


def _params(text: str) -> dict:
    """``"t=8, edge=2"`` (or ``"-"``) as the unit's parameters."""
    return {} if text == "-" else {key: int(value) for key, value in
                                   (item.split("=") for item in text.split(", "))}


def _old_row(table: Table) -> list[str]:
    return [table.old(column) for column in range(len(table.header))]


def _measured(table: Table, rows, width: int, signed: bool) -> Table:
    """``table`` with the rows ``rows(circuits, library)`` gives for EvoApproxLib's circuits and the library's grid."""
    for row in rows(*fpga_multipliers.measure(_mirror(), width, signed)):
        table.add(row)
    return table


def evoapproxlib(width: int, signed: bool = False):
    """Every EvoApproxLib circuit of the width against its cheapest library match (``fpga_multipliers.py``).
    The 8-bit library MREDs are the cheap figures; ``target`` follows from the cells in every mode."""
    def figure(cheap: bool, current):
        table = Table(fpga_multipliers.COMPARISON_HEADER, cheap, current)
        if not cheap:
            return _measured(table, fpga_multipliers.comparison_rows, width, signed)
        for _ in range(len(current) - 1):
            cells = _old_row(table)
            if cells[3] and cells[3] != "(none as accurate)":
                if width <= 8:
                    cells[5] = fpga_multipliers.mred_text(
                        fpga_multipliers.library_mred(cells[3], _params(cells[4]), width, signed))
                evo = {"mred": _fraction(cells[1]), "lut_eq": int(cells[2])}
                cells[7] = fpga_multipliers.verdict(evo, {"mred": _fraction(cells[5]), "lut_eq": int(cells[6])})
            table.add(cells)
        return table
    return figure


def evoapproxlib_buckets(width: int, signed: bool = False):
    """The fewest LUT-eq of either side per MRED bucket below 5 % (``fpga_multipliers.py``). At 8 bits
    the library's count per bucket (its whole grid) and its named unit's MRED are the cheap figures;
    ``below`` follows from the cells in every mode."""
    def figure(cheap: bool, current):
        table = Table(fpga_multipliers.BUCKET_HEADER, cheap, current)
        if not cheap:
            return _measured(table, fpga_multipliers.bucket_rows, width, signed)
        grid = ([fpga_multipliers.library_mred(name, params, width, signed)
                 for name, params in fpga_multipliers.candidates(width)] if width <= 8 else None)
        for low, high in fpga_multipliers.BUCKETS:
            cells = _old_row(table)
            cells[0] = fpga_multipliers.bucket_name(low, high)
            if grid is not None:
                cells[4] = str(sum(low <= mred < high for mred in grid))
                if cells[6] != "-":
                    name, _, rest = cells[6].partition(" ")
                    params = _params(rest.rpartition(" (")[0])
                    cells[6] = fpga_multipliers.library_label(
                        {"unit": name, "params": params,
                         "mred": fpga_multipliers.library_mred(name, params, width, signed)})
            cells[7] = fpga_multipliers.below(None if cells[2] == "-" else int(cells[2]),
                                              None if cells[5] == "-" else int(cells[5]))
            table.add(cells)
        return table
    return figure


FIGURES = {"mitchell-mred": mitchell_mred, "fpga-8bit": fpga_8bit,
           "evoapproxlib-8": evoapproxlib(8), "evoapproxlib-8-buckets": evoapproxlib_buckets(8),
           "evoapproxlib-8-signed": evoapproxlib(8, signed=True),
           "evoapproxlib-16": evoapproxlib(16), "evoapproxlib-16-buckets": evoapproxlib_buckets(16)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=sorted(FIGURES))
    parser.add_argument("--cheap", action="store_true",
                        help="recompute only the 8-bit error figures; the table as the docs have it on stdin")
    args = parser.parse_args(argv)
    current = parse_table(sys.stdin.read()) if args.cheap else None
    sys.stdout.write(FIGURES[args.name](args.cheap, current).markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
