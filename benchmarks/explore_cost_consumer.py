"""Why the cost model overestimates some savings (issue 23): a product priced alone against the same product
synthesised with the ``+`` it feeds, as the Gaussian filter's ``p0 + p1`` and tracking's ``xp + cx`` are.

    python benchmarks/explore_cost_consumer.py [--units 'mul=drum(k=3),mitchell']

For each unit (and exact) on an 8 x 8 unsigned product in a pipelined loop, it synthesises
(``hls.explore.cost.compile_probe``, the cost model's flow) ``x * y`` and its base ``x``, the probe the
model prices the product on, and ``x * y + z`` and ``x + z`` (``z`` 16 bits): the product's LUT-eq in
its consumer's company.  It prints both shares and the saving against exact each gives.  Syntheses are
cached (``$AXHLS_CACHE_DIR``).
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

SOURCE = '''import hls
from amaranth import unsigned


def probe(a: hls.Array[unsigned(8), 4], b: hls.Array[unsigned(8), 4], c: hls.Array[unsigned(16), 4],
          o: hls.Array[unsigned(17), 4]):
    for i in range(4):
        x: unsigned(8) = a[i]
        y: unsigned(8) = b[i]
        z: unsigned(16) = c[i]
        o[i] = {body}
'''


def measure(units: str) -> list[dict]:
    import hls
    from approx_units.synth import ResultCache, synthesize_verilog
    from hls.explore.cost import compile_probe
    from hls.explore.space import parse_candidates
    cache = ResultCache()

    def luts(body, unit):
        compiled = compile_probe(SOURCE.format(body=body), hls.Target(), unit)
        return synthesize_verilog(compiled.verilog(), compiled.ir.name, "ecp5", timing=False,
                                  cache=cache).lut_equivalents

    rows = []
    for unit in [None, *parse_candidates(units, ["mul"])["mul"]]:
        alone = luts("x * y", unit) - luts("x", unit)
        with_sum = luts("x * y + z", unit) - luts("x + z", unit)
        rows.append({"unit": unit.label if unit else "exact", "alone": alone, "with_its_sum": with_sum})
    for row in rows:
        row["saving_alone"] = rows[0]["alone"] - row["alone"]
        row["saving_with_its_sum"] = rows[0]["with_its_sum"] - row["with_its_sum"]
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", default="mul=drum(k=3),mitchell", help="the units, as --candidates takes them")
    args = parser.parse_args(argv)
    print(f"{'8 x 8 product':20s} {'alone':>6s} {'with its +':>10s} {'saving alone':>13s} {'saving with its +':>18s}")
    for row in measure(args.units):
        print(f"{row['unit']:20s} {row['alone']:6d} {row['with_its_sum']:10d} {row['saving_alone']:13d} "
              f"{row['saving_with_its_sum']:18d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
