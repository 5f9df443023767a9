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

The comparison with EvoApproxLib's circuits is ``benchmarks/fpga_multipliers.py``'s
(the library's whole parameter grid, every circuit of the branch).

With ``--cheap`` the table as the docs have it is read from stdin: the cheap
figures are computed again, the others (and which library unit a row names,
which takes synthesis to choose) are copied from it, and the result is printed,
so the test compares the two.  Units are taken from the registry, so when a unit
changes, ``docs_samples.py --figures`` regenerates these tables in one command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import approx_units                                    # noqa: E402
from approx_units import evaluate, synth               # noqa: E402

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
        separator = "|" + "|".join("---" for _ in self.header) + "|\n"
        lines = ["| " + " | ".join(line) + " |\n" for line in [self.header, *self.rows]]
        return lines[0] + separator + "".join(lines[1:])


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
FPGA_8BIT = [("exact_mul", {}), ("lut_mul", {"t": 0}), ("vctm_mul", {"t": 0}), ("mitchell_refined", {}),
             ("drum", {"k": 6}), ("mitchell", {}), ("trunc_mul", {"c": 8})] \
    + [("lut_mul", {"t": t}) for t in range(3, 7)] \
    + [("lut_mul", {"t": 5, "edge": 1}), ("lut_mul", {"t": 8, "edge": 2, "chain": 3})] \
    + [("vctm_mul", {"t": t, "stagger": k}) for t in (5, 6, 7) for k in (0, 1)]


def fpga_8bit(cheap: bool, current):
    """MRED and LUT-eq of the units the FPGA-multiplier section compares, at 8 bits."""
    table = Table(["unit", "params", "MRED (exhaustive)", "LUT-eq"], cheap, current)
    for name, params in FPGA_8BIT:
        table.add([f"`{name}`", params_text(params) or "defaults", percent(mred(library(name, 8, **params))),
                   table.cell(3, lambda: str(lut_eq(name, 8, **params)))])
    return table


FIGURES = {"mitchell-mred": mitchell_mred, "fpga-8bit": fpga_8bit}


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
