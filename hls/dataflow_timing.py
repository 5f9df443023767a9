"""The token times of a chain's stages, read from their schedules, and the FIFO depths they need.

Every stage of an ``@hls.dataflow`` chain runs its own schedule, held by a global stall
(:mod:`hls.backend.component`): in a cycle where a stream operation due cannot complete
(an input without ``valid``, an output whose two-entry buffer is full) nothing of the stage
happens. So a stage's cycles split into *virtual* cycles, those that happen, and stalled
ones, and its schedule says at which virtual cycle each stream operation falls:

* the chain's ``start`` is cycle 0; the stage's entry node gets its ``go`` at virtual cycle 1;
* a block run once takes its schedule's length (0 for an empty block), an operation at cycle
  ``t`` of it falls at ``go + t``;
* a pipelined ``for`` loop whose ``go`` comes at ``g`` issues iteration ``i`` at
  ``g + 1 + i * II``, an operation at cycle ``t`` of the body at that plus ``t``; after ``T``
  iterations control passes on at ``g + 1 + (T - 1) * II + max(1, depth - overlap)``
  (``g + 1`` when ``T`` is 0).

:class:`StageModel` reads that from a compiled kernel: a stage is *modelled* when its control
is a straight sequence of blocks and pipelined ``for`` loops, with no branch, no early exit and
no ``while``; when every stream operation on a FIFO is unconditional; and when at most one loop
holding stream operations has a run-time trip count (its *stream loop*; every other loop
has a constant one). Anything else makes the count or the times of tokens depend on the data,
and the stage is not modelled (:attr:`StageModel.reason` says why).

:func:`simulate` then runs the chain cycle by cycle at the level of tokens, exactly as the
hardware moves them: a write puts a token in the producer's output buffer (two entries); in
the next cycle the buffer passes it to the chain's ``SyncFIFO`` if that is not full (its level,
as registered, below its depth); a read takes it from the FIFO in a cycle where its level is
above 0. Chain inputs are always valid and chain outputs always ready: the schedules' own
pace, with no outside stall. The times it gives are those of the hardware, cycle for cycle
(``tests/compiler/test_dataflow_depths.py`` compares them with Amaranth's simulator).

:func:`needed_depth` is the rule of ``docs/language.md`` "Dataflow": the least depth at which
the FIFO's writer is never stalled by it, with every other FIFO unbounded; or, where the writer
makes tokens faster than the reader takes them (then no depth keeps it from waiting, and its
backlog grows with the number of tokens), the least depth at which the reader takes every token
in the cycle it would with an unbounded FIFO.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from .ir.nodes import Block, PipelinedLoop
from .ir.ops import operator_of

__all__ = ["StreamOp", "Segment", "StageModel", "ChainTrace", "simulate", "needed_depth", "iterations", "horizon",
           "cycle_budget", "UNBOUNDED"]

#: The depth of a FIFO that never fills, in :func:`simulate`.
UNBOUNDED = None


@dataclass(frozen=True)
class StreamOp:
    """One stream operation: at cycle ``cycle`` of its block or iteration."""

    cycle: int
    stream: str
    kind: str      # "read" or "write"
    line: int
    conditional: bool = False


@dataclass
class Segment:
    """One node of a stage's straight control: a block (``ii`` 0) or a pipelined loop.

    Attributes
    ----------
    length : int
        A block's cycles (0 when empty), a loop body's depth.
    ii : int
    overlap : int
        Cycles before its drain completes that a loop passes control on.
    trips : int or None
        A loop's constant trip count; ``None`` for the stream loop (a block: 1).
    ops : list of StreamOp
        The unconditional stream operations, in program order.
    line : int
    """

    length: int
    ii: int = 0
    overlap: int = 0
    trips: int | None = 1
    ops: list = field(default_factory=list)
    line: int = 0

    @property
    def loop(self) -> bool:
        return self.ii > 0

    def after(self, go: int, count: int) -> int:
        """The virtual cycle control passes on, given ``go`` and ``count`` iterations."""
        if not self.loop:
            return go + self.length
        return go + 1 if count == 0 else go + 1 + (count - 1) * self.ii + max(1, self.length - self.overlap)


@dataclass
class StageModel:
    """A stage's token times, as :mod:`hls.dataflow_timing` reads them from its schedule.

    Attributes
    ----------
    name : str
    reason : str or None
        Why the stage is not modelled; ``None`` when it is.
    segments : list of Segment
    streams : dict of str to str
        Each stream parameter's direction.
    ii, depth : int or None
        The stream loop's II and depth.
    per_iteration : dict of str to int
        Tokens of each stream per iteration of the stream loop.
    conditional : set of str
        Streams of the chain's ports with an operation under a condition (their counts depend
        on the data).
    """

    name: str
    reason: str | None
    segments: list = field(default_factory=list)
    streams: dict = field(default_factory=dict)
    ii: int | None = None
    depth: int | None = None
    per_iteration: dict = field(default_factory=dict)
    conditional: set = field(default_factory=set)

    @classmethod
    def of(cls, compiled, fifo_streams) -> "StageModel":
        """The model of a :class:`~hls.compiler.CompiledKernel`; ``fifo_streams`` are the
        stream parameters bound to FIFOs (only their operations must be unconditional)."""
        ir = compiled.ir
        name = ir.name
        streams = {stream: direction for stream, (_, direction) in ir.streams.items()}
        segments, seen, node = [], set(), ir.entry
        while node is not None:
            if id(node) in seen:
                return cls(name, "its control loops back (a loop that is not pipelined)", streams=streams)
            seen.add(id(node))
            if isinstance(node, PipelinedLoop):
                line = node.info.line
                if node.kind != "for" or node.exit_ops:
                    what = "a while loop" if node.kind != "for" else "a loop with an early exit"
                    return cls(name, f"line {line} is {what}: its number of iterations depends on the data",
                               streams=streams)
                scheduled = compiled.schedule_of(node.body)
                overlap = compiled.overlaps.get(node.name)
                segment = Segment(max(1, scheduled.length), scheduled.ii, 0 if overlap is None else overlap.cycles,
                                  node.info.trip_count, line=line)
                body, successor = node.body, node.successor
            else:
                if node.branch is not None or any(exit.target is not node.successor for exit in node.exits):
                    line = min((line for op in node.ops for line in op.lines), default=0)
                    return cls(name, f"its control branches (line {line}): which code runs depends on the data",
                               streams=streams)
                scheduled = compiled.schedules.get(id(node))
                length = 0 if not node.ops and not node.exits else max(1, scheduled.length if scheduled else 1)
                segment, body, successor = Segment(length, line=0), node, node.successor
                scheduled_start = scheduled.start if scheduled else {}
            start = compiled.schedule_of(body).start if isinstance(node, PipelinedLoop) else scheduled_start
            for op in body.ops:
                entry = operator_of(op.kind)
                if entry.category != "stream":
                    continue
                stream = op.attrs["stream"]
                line = min(op.lines, default=0)
                if op.predicate is not None and stream in fifo_streams:
                    return cls(name, f"line {line}: stream {stream!r} is "
                                     f"{'read' if entry.port == 'read' else 'written'} under a condition, "
                                     f"so its token count depends on the data", streams=streams)
                # A conditional operation on a port of the chain never waits there (its inputs are
                # always valid, its outputs always ready): taken as happening, it gives the
                # earliest first token and the latest `done`.
                operation = StreamOp(start[op.name], stream, entry.port, line,
                                     op.predicate is not None)
                if operation.conditional and any((other.cycle, other.stream) == (operation.cycle, stream)
                                                 for other in segment.ops):
                    continue
                segment.ops.append(operation)
            segments.append(segment)
            node = successor
        open_loops = [segment for segment in segments if segment.loop and segment.trips is None]
        streaming = [segment for segment in open_loops if segment.ops]
        if len(streaming) > 1 or len(open_loops) > len(streaming):
            segment = (open_loops if len(streaming) <= 1 else streaming)[-1]
            why = "a second loop with a run-time trip count and stream operations" if len(streaming) > 1 \
                else "a loop with a run-time trip count and no stream to count its iterations by"
            return cls(name, f"line {segment.line} is {why}", streams=streams)
        model = cls(name, None, segments, streams,
                    conditional={op.stream for segment in segments for op in segment.ops if op.conditional})
        if streaming:
            loop = streaming[0]
            model.ii, model.depth = loop.ii, loop.length
            for op in loop.ops:
                if not op.conditional:
                    model.per_iteration[op.stream] = model.per_iteration.get(op.stream, 0) + 1
        return model

    @property
    def stream_loop(self) -> Segment | None:
        return next((segment for segment in self.segments if segment.loop and segment.trips is None), None)

    def fixed_tokens(self, stream: str) -> int:
        """Tokens of ``stream`` outside the stream loop (blocks and loops of constant trip count)."""
        return sum(sum(op.stream == stream and not op.conditional for op in segment.ops) * segment.trips
                   for segment in self.segments if segment.trips is not None)

    def timeline(self, trips: int) -> tuple[dict, int]:
        """``(ops by virtual cycle, the virtual cycle control finishes)`` with the stream loop
        running ``trips`` iterations."""
        events: dict[int, list] = {}
        go = 1
        for segment in self.segments:
            count = trips if segment.trips is None else segment.trips
            if not segment.loop:
                for op in segment.ops:
                    events.setdefault(go + op.cycle, []).append(op)
            else:
                for iteration in range(count):
                    issue = go + 1 + iteration * segment.ii
                    for op in segment.ops:
                        events.setdefault(issue + op.cycle, []).append(op)
            go = segment.after(go, count)
        return events, go


@dataclass
class ChainTrace:
    """What :func:`simulate` saw.

    Attributes
    ----------
    transfers : dict of (int, str) to list of int
        (stage index, stream parameter) -> the cycles its tokens moved through the stage's port.
    done : dict of int to int or None
        Each stage's ``done`` cycle (``None``: not within the cycles simulated).
    blocked : dict of str to int
        Per FIFO, the cycles its writer was stalled by it (its output buffer full).
    peak : dict of str to int
        Per FIFO, the most tokens it held.
    """

    transfers: dict
    done: dict
    blocked: dict
    peak: dict

    @property
    def cycles(self) -> int | None:
        """The chain's ``done``: when its last stage is done (``None`` if one never was)."""
        values = list(self.done.values())
        return None if any(value is None for value in values) else max(values, default=0)


def simulate(models: list, links: list, depths: dict, trips: dict, max_cycles: int, *,
             stall_probability: float = 0.0, stall_seed: int = 0) -> ChainTrace:
    """Run the chain at the level of tokens (see the module's documentation).

    Parameters
    ----------
    models : list of StageModel
        Every stage, modelled.
    links : list of (str, (int, str), (int, str))
        Each FIFO: its name, its writer's (stage index, stream) and its reader's.
    depths : dict of str to int or None
        Each FIFO's depth; :data:`UNBOUNDED` for one that never fills.
    trips : dict of int to int
        The stream loop's iterations of each stage that has one.
    max_cycles : int
    stall_probability, stall_seed : float, int
        In each cycle each input of the chain is not valid, and each output not ready, with
        this probability (seeded): the outside stalls of ``sim.run``, in kind if not in
        sequence. 0: the schedules' own pace.
    """
    outside = random.Random(stall_seed) if stall_probability else None
    lines = [model.timeline(trips.get(index, 0)) for index, model in enumerate(models)]
    into = {writer: name for name, writer, _ in links}      # (stage, stream) -> FIFO it writes
    out_of = {reader: name for name, _, reader in links}
    level = {name: 0 for name, _, _ in links}
    buffers = {(index, stream): 0 for index, model in enumerate(models)
               for stream, direction in model.streams.items() if direction == "out"}
    virtual = [0] * len(models)
    transfers = {key: [] for index, model in enumerate(models) for key in ((index, s) for s in model.streams)}
    done = {index: None for index in range(len(models))}
    blocked = {name: 0 for name in level}
    peak = dict(level)
    for cycle in range(max_cycles):
        if all(value is not None for value in done.values()):
            break
        waiting = set() if outside is None else {key for key in transfers if outside.random() < stall_probability}
        reads, writes, progress = [], [], False
        for index, (events, finish) in enumerate(lines):
            if done[index] is not None:
                continue
            if virtual[index] >= finish:
                if all(buffers[key] == 0 for key in buffers if key[0] == index):
                    done[index], progress = cycle, True
                continue
            due = events.get(virtual[index], ())
            stall = False
            for op in due:
                key = (index, op.stream)
                if op.kind == "read" and (level[out_of[key]] == 0 if key in out_of else key in waiting):
                    stall = True
                if op.kind == "write" and buffers[key] == 2:
                    stall = True
                    if key in into:
                        blocked[into[key]] += 1
            if stall:
                continue
            for op in due:
                key = (index, op.stream)
                if op.kind == "read":
                    transfers[key].append(cycle)
                    if key in out_of:
                        reads.append(out_of[key])
                else:
                    writes.append(key)
            virtual[index] += 1
            progress = True
        moves = []
        for key, held in buffers.items():
            if not held:
                continue
            name = into.get(key)
            if name is None:
                if key in waiting:
                    continue
                transfers[key].append(cycle)       # a chain output: ready unless held
                moves.append((key, None))
            elif depths.get(name) is UNBOUNDED or level[name] < depths[name]:
                transfers[key].append(cycle)
                moves.append((key, name))
        if not progress and not moves and not waiting:
            # Nothing moved with every outside port free: the same state comes again in every
            # following cycle, so this is a deadlock (its stages' `done` stays None).
            break
        for key, name in moves:
            buffers[key] -= 1
            if name is not None:
                level[name] += 1
        for name in reads:
            level[name] -= 1
        for key in writes:
            buffers[key] += 1
        for name in level:
            peak[name] = max(peak[name], level[name])
    return ChainTrace(transfers, done, blocked, peak)


def iterations(models: list, links: list, sources: int) -> dict | str:
    """Each stage's stream-loop iterations when every stage that reads no FIFO runs
    ``sources`` of them and every other one takes what its FIFO gets; or a sentence saying
    why the token counts cannot match."""
    tokens, trips = {}, {}
    by_reader = {reader: (name, writer) for name, writer, reader in links}
    for index, model in enumerate(models):
        loop = model.stream_loop
        fed = [(stream, by_reader[(index, stream)]) for stream in model.streams if (index, stream) in by_reader]
        if loop is None:
            count = None
        elif not fed:
            count = sources
        else:
            stream, (name, _) = fed[0]
            per = model.per_iteration.get(stream, 0)
            rest = tokens[name] - model.fixed_tokens(stream)
            if per == 0 or rest < 0 or rest % per:
                return f"FIFO {name!r} gets {tokens[name]} tokens, which {model.name} cannot read in whole iterations"
            count = rest // per
        if count is not None:
            trips[index] = count
        for stream in model.streams:
            total = model.fixed_tokens(stream) + (count or 0) * model.per_iteration.get(stream, 0)
            writer = next((name for name, w, _ in links if w == (index, stream)), None)
            if writer is not None:
                tokens[writer] = total
        for stream, (name, _) in fed:
            got = model.fixed_tokens(stream) + (count or 0) * model.per_iteration.get(stream, 0)
            if got != tokens[name]:
                return f"FIFO {name!r} gets {tokens[name]} tokens and {model.name} reads {got}"
    return trips


def horizon(models: list) -> int:
    """Iterations of the source stages long enough for every FIFO to reach its steady state:
    well past the latest start of any stream loop, in iterations of the slowest."""
    lead, slowest = 0, 1
    for model in models:
        go = 1
        for segment in model.segments:
            if segment.loop and segment.trips is None:
                lead, slowest = max(lead, go + segment.length), max(slowest, segment.ii)
                break
            go = segment.after(go, segment.trips)
    return 64 + 4 * lead + 8 * slowest


def cycle_budget(models: list, trips: dict) -> int:
    """Cycles :func:`simulate` may take: far more than any chain that does not deadlock needs
    (a deadlock ends a run at once), 16 times every stage's own cycles one after another."""
    return 16 * (16 + sum(model.timeline(trips.get(index, 0))[1] + 4 for index, model in enumerate(models)))


def needed_depth(models: list, links: list, name: str) -> tuple[int, bool]:
    """``(depth, outpaced)``: the depth FIFO ``name`` needs by the rule of the module's
    documentation, and whether its writer makes tokens faster than its reader takes them."""
    link = next(link for link in links if link[0] == name)
    _, writer, reader = link
    base = horizon(models)

    def run(sources, depth):
        trips = iterations(models, links, sources)
        depths = {other: UNBOUNDED for other, _, _ in links}
        depths[name] = depth
        return simulate(models, links, depths, trips, cycle_budget(models, trips))

    free = run(base, UNBOUNDED)
    outpaced = run(2 * base, UNBOUNDED).peak[name] > free.peak[name]

    def enough(depth):
        trace = run(base, depth)
        if outpaced:
            return trace.transfers[reader] == free.transfers[reader]
        return trace.blocked[name] == 0

    low, high = 1, max(1, free.peak[name] + 1)      # a FIFO that never fills changes nothing
    while low < high:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle + 1
    return low, outpaced
