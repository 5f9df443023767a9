"""Store-to-load forwarding in pipelined loops: memory read-after-write at II = 1.

A load ``L`` that may read what a store ``S`` of the *previous* iteration
wrote (a memory dependence ``S -> L`` at distance 1, exact as in
``a[i] += a[i-1]`` or conservative as in ``h[x[i]] += 1``) would otherwise need
``II >= t(S) + 1 - t(L)``: the store must reach the memory before the load
reads it.  With forwarding the load reads the memory early and a ``forward``
operation after it compares its address with the address of every such store
of the previous iteration and, when one matches (and that store was valid and
its predicate held), takes the store's data instead; the latest matching
store in program order wins.  Then:

* the store must reach the memory only before the load *two* iterations later
  (``S -> L`` at distance 2, kind ``memory``);
* the forward operation needs the store's address, data and predicate of the
  previous iteration (each ``-> forward`` at distance 1, kind ``memory``).

A load that may also read a store of its own iteration made earlier in program
order is not forwarded (that younger store would have to win, and the memory
already orders it).

When the only such store is unconditional and the dependence exact (``a[i] =
a[i-1] + b[i]``), every iteration but the first takes the forwarded value, so
the load touches the memory only in the first iteration (*scalar
replacement*): it is marked ``first_iteration_only``, does not count against
the read port, and is scheduled before the array's other reads so that in the
first iteration it has the port to itself.
"""

from __future__ import annotations

from ..ir.nodes import Op, PipelinedLoop
from ..ir.ops import operator_of
from .memdep import loop_dependences

__all__ = ["insert_forwarding", "forwarded_pairs"]


def insert_forwarding(loop: PipelinedLoop) -> list[Op]:
    """Insert ``forward`` operations after the loads of ``loop``'s body that need them.

    The users of each such load are redirected to its ``forward`` operation.
    Returns the new operations.
    """
    body = loop.body
    dependences = loop_dependences(loop)
    same_iteration = {dep.dst for dep in dependences if dep.distance == 0 and _writes(dep.src)
                      and _reads(dep.dst)}
    created = []
    for load in [op for op in body.ops if _reads(op)]:
        if load in same_iteration or load.attrs.get("registers"):
            # A register of a completely partitioned local array is read without latency:
            # the previous iteration's store is already in it one cycle later.
            continue
        carried = [dep for dep in dependences
                   if dep.dst is load and _writes(dep.src) and dep.distance == 1]
        if not carried:
            continue
        stores = sorted((dep.src for dep in carried), key=body.ops.index)
        if len(carried) == 1 and carried[0].exact and stores[0].predicate is None and load.predicate is None:
            # a[i] = ... a[i-1] ...: every iteration but the first reads what the previous one
            # stored, so only the first needs the memory (its port request is gated that way).
            load.attrs["first_iteration_only"] = True
        forward = Op(f"forward_{load.name}", "forward", [load, load.operands[0]], load.shape, None, load.lines,
                     {"array": load.attrs["array"], "stores": stores})
        forward.text = f"{load.text} (forwarded)"
        for op in body.ops:
            op.operands = [forward if operand is load else operand for operand in op.operands]
            if op.predicate is load:
                op.predicate = forward
        for exit in loop.exit_ops:
            exit.operands = [forward if operand is load else operand for operand in exit.operands]
        body.ops.insert(body.ops.index(load) + 1, forward)
        created.append(forward)
    return created


def _reads(op) -> bool:
    return operator_of(op.kind).reads_memory


def _writes(op) -> bool:
    return operator_of(op.kind).writes_memory


def forwarded_pairs(body) -> set[tuple[Op, Op]]:
    """``(store, load)`` pairs whose distance-1 dependence a ``forward`` operation covers."""
    pairs = set()
    for op in body.ops:
        if op.kind == "forward":
            for store in op.attrs["stores"]:
                pairs.add((store, op.operands[0]))
    return pairs
