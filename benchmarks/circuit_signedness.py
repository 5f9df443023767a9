"""How often a third-party circuit's behaviour tells its signedness and kind: EvoApproxLib's circuits with
their names hidden.

Each circuit (one per name, ``*_pdk45.v`` left out) is copied as ``circuit.v`` with its module renamed,
so that :func:`approx_units.verilog_eval.load_circuit` cannot read its name and decides by behaviour
(the reading, signed or unsigned, that is ``SIGNEDNESS_MARGIN`` times closer to the exact results). Per
group of the name (``mul8s``, ``add8u``, ...) it prints how many the behaviour decides as the name says,
decides otherwise, or leaves undecided (then the name, or a declared ``signed``, is needed), and how many
it gives another kind than the name's.

    python benchmarks/circuit_signedness.py [--evoapproxlib DIR] [--per-group N] [--group mul8s ...]

``DIR`` is a checkout of ehw-fit/evoapproxlib's v2022 branch (default ``$EVOAPPROXLIB``).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys
import tempfile
from pathlib import Path

from approx_units.verilog_eval import EVOAPPROXLIB_NAME, VerilogError, load_circuit


def circuits(root: Path) -> dict[str, list[Path]]:
    """``{group: [file, ...]}``: one file per circuit name, by name within a group."""
    first: dict[str, Path] = {}
    for path in sorted(root.rglob("*.v")):
        if not path.stem.endswith("_pdk45") and EVOAPPROXLIB_NAME.match(path.stem) and path.stem not in first:
            first[path.stem] = path
    groups: dict[str, list[Path]] = collections.defaultdict(list)
    for name in sorted(first):
        groups[name.split("_")[0]].append(first[name])
    return dict(sorted(groups.items()))


def by_behaviour(path: Path, work: Path):
    """``(signed, kind)`` that the behaviour of ``path``'s circuit gives, or ``(None, None)`` undecided."""
    hidden = work / "circuit.v"
    hidden.write_text(re.sub(rf"\bmodule\s+{re.escape(path.stem)}\b", "module circuit", path.read_text()))
    try:
        circuit = load_circuit(hidden)
    except VerilogError as error:
        if "cannot tell whether" not in str(error):
            raise
        return None, None
    return circuit.signed, circuit.kind


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evoapproxlib", default=os.environ.get("EVOAPPROXLIB"),
                        help="a checkout of ehw-fit/evoapproxlib's v2022 branch (default $EVOAPPROXLIB)")
    parser.add_argument("--per-group", type=int, default=None, help="at most N circuits of each group")
    parser.add_argument("--group", action="append", default=[], help="only these groups (mul8s, add8u, ...)")
    args = parser.parse_args(argv)
    if not args.evoapproxlib or not Path(args.evoapproxlib).is_dir():
        print("circuit_signedness: give --evoapproxlib DIR or set EVOAPPROXLIB", file=sys.stderr)
        return 2
    totals = collections.Counter()
    print(f"{'group':<9} {'circuits':>8} {'as named':>8} {'other':>5} {'undecided':>9} {'other kind':>10}")
    with tempfile.TemporaryDirectory(prefix="axhls-signedness-") as work:
        for group, paths in circuits(Path(args.evoapproxlib)).items():
            if args.group and group not in args.group:
                continue
            counts = collections.Counter()
            for path in paths[:args.per_group]:
                kind, _, _, sign = EVOAPPROXLIB_NAME.match(path.stem).groups()
                signed, found = by_behaviour(path, Path(work))
                counts["circuits"] += 1
                counts["undecided" if signed is None else "as named" if signed == (sign != "u") else "other"] += 1
                counts["other kind"] += found is not None and found != kind
            totals.update(counts)
            print(f"{group:<9} {counts['circuits']:>8} {counts['as named']:>8} {counts['other']:>5} "
                  f"{counts['undecided']:>9} {counts['other kind']:>10}", flush=True)
    print(f"{'total':<9} {totals['circuits']:>8} {totals['as named']:>8} {totals['other']:>5} "
          f"{totals['undecided']:>9} {totals['other kind']:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
