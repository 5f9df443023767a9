"""Linked-list walk with a sum: a ``while`` over a pointer chase ``j = nxt[j]``."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values

NIL = 64  # one past the last node: the end of the list


@hls.kernel
def list_walk(nxt: hls.Array[unsigned(7), 64], val: hls.Array[signed(16), 64],
              head: unsigned(7)) -> signed(32):
    s: signed(32) = 0
    j = head
    while j != NIL:
        s = s + val[j]
        j = nxt[j]
    return s


def _list(order: list[int]) -> list[int]:
    """``nxt`` for a list visiting ``order``; other nodes point to NIL."""
    nxt = [NIL] * 64
    for node, following in zip(order, order[1:]):
        nxt[node] = following
    return nxt


def _shuffled(seed: int) -> list[int]:
    keys = values(seed, 64, 0, 10 ** 9)
    return sorted(range(64), key=lambda node: keys[node])


EXAMPLES = [
    {"nxt": _list(_shuffled(181)), "val": values(182, 64, -32768, 32767), "head": _shuffled(181)[0]},
    {"nxt": _list(list(range(64))), "val": [32767] * 64, "head": 0},           # 64 nodes, largest sum
    {"nxt": _list(list(range(64))), "val": [-32768] * 64, "head": 0},          # most negative sum
    {"nxt": _list(_shuffled(183)), "val": values(184, 64, -9, 9), "head": NIL},  # empty list
    {"nxt": _list([7]), "val": values(185, 64, -9, 9), "head": 7},              # one node
    {"nxt": _list(_shuffled(186)[:20]), "val": values(187, 64, -9, 9), "head": _shuffled(186)[0]},
]
