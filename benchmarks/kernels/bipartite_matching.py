"""Greedy matching over an edge list, in the style of Dynamatic's benchmark.

``vtx[v]`` is -1 while v is free and its partner once matched, so
``vtx[u] * vtx[v] == 1`` holds exactly when both ends are free (only one vertex
can have partner 1). Reads and writes of ``vtx`` go through data-dependent
addresses in every iteration.
"""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values

FREE = -1


@hls.kernel
def bipartite_matching(edges: hls.Array[unsigned(5), 64], vtx: hls.Array[signed(6), 32],
                       m: unsigned(6)) -> unsigned(6):
    matched: unsigned(6) = 0
    for e in range(m):
        u = edges[2 * e]
        v = edges[2 * e + 1]
        if vtx[u] * vtx[v] == 1:
            vtx[u] = v
            vtx[v] = u
            matched = matched + 1
    return matched


def _edges(pairs: list[tuple[int, int]]) -> list[int]:
    flat = [end for pair in pairs for end in pair]
    return flat + [0] * (64 - len(flat))


def _bipartite(seed: int, count: int) -> list[tuple[int, int]]:
    """Random edges between the left vertices 0..15 and the right vertices 16..31."""
    left, right = values(seed, count, 0, 15), values(seed + 1, count, 16, 31)
    return list(zip(left, right))


EXAMPLES = [
    {"edges": _edges(_bipartite(171, 32)), "vtx": [FREE] * 32, "m": 32},
    {"edges": _edges(_bipartite(173, 32)), "vtx": [FREE] * 32, "m": 12},
    {"edges": _edges(_bipartite(175, 32)), "vtx": [FREE] * 32, "m": 0},        # zero trip count
    {"edges": _edges([(i, 16 + i) for i in range(16)] * 2), "vtx": [FREE] * 32, "m": 32},  # perfect
    {"edges": _edges([(0, 16 + i) for i in range(16)] * 2), "vtx": [FREE] * 32, "m": 32},  # a star
    {"edges": _edges(_bipartite(177, 32)), "vtx": [FREE] * 16 + [3] * 16, "m": 32},  # right side taken
]
