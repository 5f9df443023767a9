"""Overlapping the runs of an inner pipelined loop that is not flattened (issue 11).

A pipelined loop normally passes the control token on (``done``) once its
last iteration has drained.  When the loop sits in an outer loop that could
not be flattened (an inner ``while``, two inner loops), the outer code between
two runs and the next run's first iterations then wait for that drain.  This
analysis finds how many cycles ``e`` earlier the token may be passed: the
loop's ``done`` rises when no valid iteration is left in stages
``1 .. depth - e - 1`` (``e = 0`` is the plain drain), and the last
iterations finish in the background while the code after the loop, and the
next run, start.

The proof obligation, in absolute cycles.  Let ``D`` be the cycle in which the
early ``done`` rises.  Every surviving iteration then sits in stage
``depth - e`` or later (a ``while``/``break`` loop has stopped issuing), so an
operation at cycle ``t`` of an old iteration happens no later than
``D + t - depth + e``, and every operation at ``t < depth - e`` has already
happened.  Code that follows the loop starts at ``D + o``, ``o`` the lower
bound of its offset along every path of the control-flow graph from the
loop's successor (a block of length ``n`` puts its successors ``n`` cycles
later, a pipelined loop reached again puts its first iteration's cycle ``s``
at ``o + 1 + s`` and its successor at ``o + 1`` or later, the kernel's end at
``o``).  Then, for every pair of an old operation at cycle ``t`` and a new one
at offset ``o`` on the same resource:

* strictly before (``e <= depth - t + o - 1``): a variable written by the old
  iteration and read or written by the new code; the old iteration's memory
  accesses and any new access of the same array (so that no port is requested
  twice in one cycle, and every read sees every older write); the old
  iteration's use of a shared unit (``resources=``) and the next run's use of
  it; the old iteration's write of a carry register and the next run's loading
  of it at its ``go``;
* at or before (``e <= depth - t + o``): a variable or carry register the old
  iteration reads and the new code writes (a register write takes effect in
  the next cycle).

And besides: no exit of an old iteration may still fire after ``D`` (its
squash would reach the next run's iterations, and it would stop the next
run), so ``e <= depth - 1 - t`` for every exit at cycle ``t``; and when the next run's first iteration looks at the valid bit
of the iteration before it (store-to-load forwarding, a carry's bypass, a read
made only by the first iteration), no old iteration may sit there
(``e <= depth + o - II``).  The overlap is the largest ``e`` that satisfies
all of these, and the binding one is the reason when it is 0.  The kernel's
own ``done`` is not bounded by this: the back end holds it until every
overlapped loop has drained.

Only loops nested in another loop are considered (a loop at the top level is
followed by other code, not by its own next run), and not below an outer loop
marked ``hls.sequential`` (the way to keep a nest sequential).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..ir.nodes import PipelinedLoop
from ..ir.ops import operator_of
from .predicates import literals

__all__ = ["Overlap", "overlap_runs"]


@dataclass(frozen=True)
class Overlap:
    """How the runs of one inner pipelined loop follow each other.

    Attributes
    ----------
    cycles : int
        How many cycles before its last iteration completes the loop passes
        control on (0: the runs are sequential, each drains before the code
        after it starts).
    reason : str
        For ``cycles == 0``: why, quoting source lines; for an overlap: what
        limits it to ``cycles`` (empty when only the loop's own depth does).
    lines : tuple of int
        The source lines the reason names.
    """

    cycles: int
    reason: str = ""
    lines: tuple = field(default=())

    @property
    def status(self) -> str:
        """``"inner runs overlapped"`` or ``"inner runs sequential: <reason>"``."""
        if self.cycles > 0:
            return "inner runs overlapped"
        return f"inner runs sequential: {self.reason}"


@dataclass(frozen=True)
class _Event:
    """One use of a resource by the code after the loop, ``offset`` cycles after the early ``done``."""

    resource: tuple        # ("var", v), ("array", a), ("carry", v), ("unit", type), ("lookback",)
    write: bool
    offset: int
    lines: tuple
    what: str
    shift: int = 0         # how many cycles earlier than its own cycle the use is counted


def _lines(op) -> tuple:
    return tuple(sorted(set(op.lines)))


def _describe(lines) -> str:
    return "line " + ", ".join(map(str, lines)) if lines else "the loop's control"


def _third(what: str) -> str:
    """``read `x``` as ``reads `x```: the verb of an event in the third person."""
    verb, _, rest = what.partition(" ")
    verb = verb[:-1] + "ies" if verb.endswith("y") else verb + "s"
    return f"{verb} {rest}"


def _inert_when_exiting(loop: PipelinedLoop) -> set:
    """The stores and commits of ``loop`` that no iteration firing an exit performs.

    An exit fires when every literal of its condition (a conjunction) holds; an
    operation whose predicate has one of those literals with the opposite polarity
    (the body of a ``while`` under its condition, the statements after a ``break``)
    cannot act in that iteration.
    """
    conditions = [literals(op.operands[0]) for op in loop.exit_ops]
    inert = set()
    for op in loop.body.ops:
        entry = operator_of(op.kind)
        if entry.has_effect and entry.category != "stream" and op.predicate is not None:
            mine = literals(op.predicate)
            if conditions and all(any((cond, not polarity) in mine for cond, polarity in condition)
                                  for condition in conditions):
                inert.add(op)
    return inert


def _enclosing(ir, loop: PipelinedLoop):
    """The loops enclosing ``loop``, innermost first (by source order and nesting depth)."""
    index = next(i for i, info in enumerate(ir.loops) if info is loop.info)
    out, depth = [], loop.info.depth
    for info in reversed(ir.loops[:index]):
        if info.depth < depth:
            out.append(info)
            depth = info.depth
    return out


def _op_events(ops, schedule, base: int, *, own: bool, carried: set, limited) -> list[_Event]:
    """The resource uses of ``ops`` (a block, or one iteration of a loop body) started at ``base``."""
    events = []
    for op in ops:
        t = base + schedule.start[op.name]
        lines, entry = _lines(op), operator_of(op.kind)
        if entry.variable == "read":
            var = op.attrs["var"]
            resource = ("carry", var) if own and var in carried else ("var", var)
            if not own and var in carried:
                continue        # another loop's carry register: not a resource of this loop
            events.append(_Event(resource, False, t, lines, f"read `{var}`"))
        elif entry.category == "register":
            events.append(_Event(("var", op.attrs["var"]), True, t, lines, f"write `{op.attrs['var']}`"))
        elif entry.category == "carry" and own:
            events.append(_Event(("carry", op.attrs["var"]), True, t, lines, f"carry `{op.attrs['var']}`"))
        elif entry.category == "memory":
            events.append(_Event(("array", op.attrs["array"]), entry.port == "write", t, lines,
                                 f"{entry.port} `{op.attrs['array']}`"))
        elif entry.category == "stream":
            # Tokens keep their order: every access of a stream is ordered like a write.
            events.append(_Event(("stream", op.attrs["stream"]), True, t, lines,
                                 f"{entry.port} a token of stream `{op.attrs['stream']}`"))
        if own and limited(op) is not None:
            events.append(_Event(("unit", limited(op)), True, t, lines, f"use the shared `{limited(op)}` unit"))
    return events


def overlap_runs(ir, schedule_of, *, enabled: bool = True) -> dict[str, Overlap]:
    """The :class:`Overlap` of every pipelined loop nested in another loop, by loop name.

    Parameters
    ----------
    ir : hls.ir.KernelIR
    schedule_of : callable
        ``schedule_of(block)`` gives the block's :class:`hls.compiler.BlockSchedule`.
    enabled : bool
        ``False``: every run is sequential (``compile_kernel(..., overlap=False)``).
    """
    out = {}
    for node in ir.nodes:
        if isinstance(node, PipelinedLoop) and node.info.depth > 0:
            out[node.name] = (_overlap_of(ir, node, schedule_of) if enabled else
                              Overlap(0, "overlap turned off for this compilation"))
    return out


def _overlap_of(ir, loop: PipelinedLoop, schedule_of) -> Overlap:
    for outer in _enclosing(ir, loop):
        if outer.mode == "sequential":
            return Overlap(0, f"the outer loop on line {outer.line} is hls.sequential", (outer.line,))
    scheduled = schedule_of(loop.body)
    length, ii = max(1, scheduled.length), scheduled.ii
    problem = scheduled.problem.problem
    carried = {op.attrs["var"] for op in loop.body.ops if operator_of(op.kind).category == "carry"}

    def limited(op):
        if operator_of(op.kind).category in ("memory", "stream"):
            return None         # ports are the array's or the stream's resource
        optype = problem.operator_type_of(op.name)
        return optype.name if optype.limit is not None else None

    # The cap: every exit of an old iteration has resolved by D.
    best, reason, reason_lines = length - 1, f"the loop's depth is {length}: nothing is left to drain", ()
    for op in loop.body.ops:
        if operator_of(op.kind).category == "exit":
            t = scheduled.start[op.name]
            if length - 1 - t < best:
                best = length - 1 - t
                reason = (f"the exit on {_describe(_lines(op))} resolves in cycle {t} of the iteration's "
                          f"{length}: a squash after it could reach the next run")
                reason_lines = _lines(op)
    if best <= 0:
        return Overlap(0, reason, reason_lines)
    # The youngest iteration left is the one whose exit fired (a while loop stops only through an
    # exit, and an older iteration's later exit squashes the younger ones). Its stores and commits
    # whose predicate excludes every exit's condition do nothing, so for those the latest active
    # iteration is the one before it, II stages further: they are counted II cycles earlier.
    inert = _inert_when_exiting(loop) if loop.kind == "while" else set()
    old = (_op_events([op for op in loop.body.ops if op not in inert], scheduled.schedule, 0, own=True,
                      carried=carried, limited=limited)
           + [dataclasses.replace(event, shift=ii)
              for event in _op_events([op for op in loop.body.ops if op in inert], scheduled.schedule, -ii,
                                      own=True, carried=carried, limited=limited)])
    looks_back = [op for op in loop.body.ops
                  if op.kind == "forward" or op.attrs.get("first_iteration_only")
                  or (operator_of(op.kind).variable == "read" and op.attrs["var"] in carried)]

    # Every node reachable from the loop's successor, with each offset it can start at. A use at
    # offset o bounds the overlap by at least o (and a look-back by o + depth - II), so nothing
    # from cap + II on can bind.
    horizon = best + ii
    events, seen, pending = [], set(), [(loop.successor, 0)]
    while pending:
        node, offset = pending.pop()
        if offset >= horizon or (id(node), offset) in seen:
            continue
        seen.add((id(node), offset))
        if node is None:
            continue        # the kernel's done waits for the drain (hls.backend.component)
        elif isinstance(node, PipelinedLoop):
            own = node is loop
            if own and offset == 0:
                # Its `go` would come in the cycle its `done` does.
                return Overlap(0, f"the next run of the loop on line {loop.info.line} starts in the cycle "
                                  f"this one ends", (loop.info.line,))
            body = schedule_of(node.body)
            node_carried = {op.attrs["var"] for op in node.body.ops if operator_of(op.kind).category == "carry"}
            line = (node.info.line,)
            for var in sorted(node_carried):
                events.append(_Event(("var", var), False, offset, line, f"start a run from `{var}`"))
                if own:
                    events.append(_Event(("carry", var), True, offset, line, f"start a run from `{var}`"))
            if node.kind == "for":
                events.append(_Event(("var", node.start_var), False, offset, line, "start its counter"))
                events.append(_Event(("var", node.stop_var), False, offset + 1, line, "test its bound"))
            events += _op_events(node.body.ops, body.schedule, offset + 1, own=own, carried=node_carried,
                                 limited=limited if own else (lambda op: None))
            if own and looks_back:
                events.append(_Event(("lookback",), False, offset, _lines(looks_back[0]),
                                     "look back at the iteration before it"))
            pending.append((node.successor, offset + 1))
        else:
            if node.ops:
                block = schedule_of(node)
                events += _op_events(node.ops, block.schedule, offset, own=False, carried=set(),
                                     limited=lambda op: None)
                span = max(1, block.length)
            else:
                span = 0
            for successor in node.successors():
                pending.append((successor, offset + span))

    old_by_resource = {}
    for event in old:
        old_by_resource.setdefault(event.resource, []).append(event)
    for new in events:
        if new.resource == ("lookback",):
            candidates = [(length + new.offset - ii,
                           f"the next run's first iteration would {new.what} ({_describe(new.lines)}) "
                           f"while the last iterations of this run are still there", new.lines)]
        else:
            candidates = []
            for previous in old_by_resource.get(new.resource, ()):
                if not previous.write and not new.write:
                    if new.resource[0] != "array":
                        continue        # two reads of a register
                weak = not previous.write and new.write and new.resource[0] in ("var", "carry")
                bound = length - previous.offset + new.offset - (0 if weak else 1)
                when = "in the cycle" if new.offset == 0 else f"{new.offset} cycle(s) after"
                before = ", in the iteration before the exiting one"
                candidates.append((bound, f"{_describe(new.lines)} {_third(new.what)} {when} the loop passes "
                                          f"control on, while its last iterations still {previous.what} "
                                          f"({_describe(previous.lines)}, cycle {previous.offset + previous.shift} "
                                          f"of {length}{before if previous.shift else ''})",
                                   tuple(sorted(set(new.lines + previous.lines)))))
        for bound, text, lines in candidates:
            if bound < best:
                best, reason, reason_lines = bound, text, lines
    if best <= 0:
        return Overlap(0, reason, reason_lines)
    return Overlap(best, reason if best < length - 1 else "", reason_lines if best < length - 1 else ())
