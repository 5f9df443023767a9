"""How many fuzz programs had a memory dependence dropped or shortened by the nest test (issue 20).

Run ``python benchmarks/fuzz_nest_proofs.py --seed S --count N [--containing TEXT]``.  It
generates the programs ``benchmarks/fuzz.py`` runs with the same arguments, compiles those whose
source contains ``TEXT`` (default ``g[``, the grid nests), and counts the programs whose report
names a proof of the nest test between forms a constant apart ("touched only where") and one of
its same-form case ("distinct for distinct"), printing a few of the first kind, and among all of
them those whose distances come from constant lengths of the levels' iterations ("takes N
iterations") and those through a mask or a wrap ("equal only modulo").  It does not simulate:
``benchmarks/fuzz.py`` checks the same programs against Python.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from hls.compiler import compile_kernel  # noqa: E402
from sim.fuzz import generate, load_program  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--containing", default="g[", metavar="TEXT")
    parser.add_argument("--examples", type=int, default=3, help="proofs of the shifted kind to print (default 3)")
    args = parser.parse_args(argv)
    shifted = same = ran = timed = wrapped = 0
    examples = []
    with tempfile.TemporaryDirectory() as directory:
        for index in range(args.count):
            program = generate(args.seed, index)
            if args.containing not in program.source:
                continue
            ran += 1
            report = compile_kernel(load_program(program, directory)).report.to_json()
            proofs = [proof for loop in report["loops"] for proof in loop.get("independent", [])]
            found = [proof for proof in proofs if "touched only where" in proof]
            shifted += bool(found)
            same += any("distinct for distinct" in proof for proof in proofs if proof not in found)
            nest = [proof for proof in proofs if "touched only where" in proof or "distinct for distinct" in proof]
            timed += any(re.search(r"takes \d+ iterations", proof) for proof in nest)
            wrapped += any("equal only modulo" in proof for proof in nest)
            if found and len(examples) < args.examples:
                examples.append(f"  program {index}: {found[0]}")
    print(f"seed {args.seed}: {ran} of {args.count} programs contain {args.containing!r}; {shifted} have a "
          f"dependence dropped or shortened by the nest test between forms a constant apart, {same} by its "
          f"same-form case; {timed} of these have distances from constant lengths of the levels' iterations, "
          f"{wrapped} meet only modulo a mask or a wrap")
    print("\n".join(examples))


if __name__ == "__main__":
    main()
