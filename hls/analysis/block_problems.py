"""Scheduling problems for the blocks of the IR.

One :class:`~hls.schedule.problem.Problem` per block: the body of a pipelined
loop becomes a cyclic problem with loop-carried dependences, any other block
an acyclic one (run once per visit).

Operator types
--------------
* ``wire`` (constants, variable reads, wraps): latency 0, no delay;
* ``reg`` (``commit``, the write of a variable's register): latency 1;
* ``exit`` (an early exit's test): latency 1, with the device's
  :attr:`~approx_units.devices.DelayModel.exit_logic` (its fire, the squash and the stop
  into the loop's control registers) as incoming delay: its condition chains into it only
  where it is ready that long before the period ends, else the exit is a cycle later;
* ``read:A`` / ``write:A``: the ports of array ``A``, latency 1 (block RAM),
  ``limit`` 1 each by default (simple dual-port RAM); ``read:A.K`` /
  ``write:A.K`` the ports of bank ``K`` of a partitioned array;
* ``register-read:A`` (latency 0, unlimited) / ``write:A.K`` (latency 1, limit 1):
  the registers of a completely partitioned local array;
* ``stream:S``: stream ``S`` (a read or a write of one token), latency 0 (the token is
  the stream's payload in that cycle), ``limit`` 1: one token per cycle per stream;
* ``<kind><width>``: combinational operators with the delay of their entry
  in the operator table (:meth:`hls.ir.ops.Operator.delay_of`) under the
  target's device model; an operator slower than the clock period gets
  ``ceil(delay / period)`` cycles of latency;
* a unit pipelined for its operand shapes (``//`` and ``%`` by a variable,
  :mod:`hls.unit_operators`): its stages as latency, its first and last segments as the
  incoming and outgoing delays, one type per operand shape pair; a shared
  instance of one is timed for the shapes covering all its users;
* a resource named in the target's ``resources`` (``"mul"``, ``"div"``,
  ``"floordiv"``, ``"mod"``: an entry's ``limited_by``) becomes one shared
  operator type with that ``limit``.

Every operation's kind must be in the operator table; the category of its
entry (``wire``, ``register``, ``carry``, ``exit``, ``memory``, ``logic``)
decides its type.

Dependences
-----------
* data: operand -> user, distance 0, with the routing from one carry chain into the next
  where both are carry-chain operators (:meth:`hls.ir.ops.Operator.entry_routing`, through
  wiring), paid where the user chains on the operand in its cycle; the predicate of a store or commit ->
  that operation; the predicate of an operation on a limited operator (a read
  port, a shared unit) -> that operation only when another user of the type
  is exclusive with it, so that the two may share the instance in one cycle
  (the predicate chooses between them).  Otherwise the operation is
  *speculated* (:attr:`BlockProblem.speculated`): its request is made whatever
  the predicate, which it need not wait for.  Reads cannot fault, and the
  value of a read whose predicate fails is never used, so a read ``a[mid]``
  under a ``while`` condition starts before the condition is known;
* variables: ``live_in(v) -> commit(v)`` at distance 0 (the register is read
  before it is overwritten) and, in a pipelined body, ``commit(v) -> live_in(v)``
  at distance 1: the recurrence through ``v``.  In a pipelined body the
  recurrence goes through ``carry(v)`` instead (latency 0: a register with a
  bypass, so a recurrence through a one-cycle memory read still reaches II 1),
  and every ``exit`` precedes every store and commit of the next iteration
  (distance 1, kind ``exit``): a squash must come before anything younger
  becomes visible;
* memory: from :func:`hls.analysis.memdep.memory_dependences`;
* streams: a stream's reads (or writes) keep their program order, within an
  iteration (distance 0) and from the last of one iteration to the first of the
  next (distance 1); a stream operation is never speculated (its predicate always
  precedes it, through a dependence whose tail is the stall's logic,
  :attr:`~approx_units.devices.DelayModel.stream_stall`: the predicate decides the
  stall, which reaches every register's enable, so it chains into the operation only
  where that logic fits the rest of the cycle, and is otherwise computed in an earlier
  cycle and taken from a register), and exits precede the next iteration's stream
  operations as they precede its stores.  In a block run once a stream operation starts
  at cycle 1 at the earliest (:attr:`BlockProblem.earliest_cycle`): cycle 0 is the
  block's ``go``, which comes late in its cycle from the node before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.nodes import Block, Op, PipelinedLoop
from ..ir.ops import covering_shape, limitable_resources, operator_of
from ..schedule.problem import Dependence, Operation, OperatorType, Problem
from ..target import Target
from .forwarding import forwarded_pairs
from .logic_cones import cone_levels
from .memdep import loop_dependences, memory_dependences
from .predicates import exclusive

__all__ = ["BlockProblem", "build_problem"]

#: Resource names a kernel may limit with ``resources=``, and the IR kinds they cover
#: (from the operator table's ``limited_by``).
LIMITABLE = limitable_resources()


@dataclass
class BlockProblem:
    """A block's scheduling problem and what the back end needs to read the schedule.

    Attributes
    ----------
    problem : Problem
    block : Block
    pipelined : bool
    ops : dict of str to Op
    slow_ops : list of Op
        Operations slower than one clock period (given multi-cycle latency).
    speculated : set of str
        Predicated operations on a limited operator (loads, shared units) that
        no other user of their type is exclusive with: they request their port
        or instance whatever their predicate, without waiting for it.
    earliest_cycle : dict of str to int
        Least start cycles: in a block run once, 1 for each stream operation.  The block's
        cycle 0 is its ``go`` pulse, which comes late in that cycle from the node before
        (after a pipelined loop, the OR of its valid chain in ``done``); a stream request
        there would run on through the stall into every register's enable.
    """

    problem: Problem
    block: Block
    pipelined: bool
    ops: dict[str, Op] = field(default_factory=dict)
    slow_ops: list[Op] = field(default_factory=list)
    speculated: set[str] = field(default_factory=set)
    earliest_cycle: dict[str, int] = field(default_factory=dict)

    def guard(self, op: Op) -> Op | None:
        """The predicate gating ``op``'s port or instance request: ``None`` when it is speculated."""
        return None if op.name in self.speculated else op.predicate


def _operator_type(op: Op, target: Target, array_ports: dict) -> OperatorType:
    entry = operator_of(op.kind)
    period, model = target.usable_period_ns, target.delay_model
    if entry.category == "wire":
        return OperatorType("wire")
    if entry.category == "register":
        return OperatorType("reg", latency=1, description=entry.description)
    if entry.category == "carry":
        # A register with a bypass multiplexer: the next iteration may chain on the value.
        # The multiplexer (one LUT) exists only when the schedule chains across iterations;
        # it is left out of the model rather than charged to every recurrence.
        return OperatorType("carry", description=entry.description)
    if entry.category == "exit":
        # Its fire, the squash and the stop into the loop's control registers follow its condition
        # in its cycle.  Where that logic alone fills the period, the report claims a slower clock.
        return OperatorType("exit", latency=1, incoming_delay=min(model.exit_logic, period),
                            description=entry.description)
    if entry.category == "stream":
        stream = op.attrs["stream"]
        return OperatorType(f"stream:{stream}", latency=0, limit=1, description=f"stream `{stream}`")
    if entry.category == "memory":
        array = op.attrs["array"]
        bank = op.attrs.get("bank")
        if op.attrs.get("registers"):
            # One register per element (a completely partitioned hls.local): read combinationally,
            # written at the clock edge, one write per register per cycle.
            if entry.port == "read":
                return OperatorType(f"register-read:{array}", description=f"register of `{array}`")
            return OperatorType(f"write:{array}.{bank}", latency=1, limit=1,
                                description=f"register {bank} of `{array}`")
        if bank is not None:
            # Each bank of a partitioned array has its own ports.
            array_label = f"{array}.{bank}"
            where = f"bank {bank} of `{array}`"
        else:
            array_label, where = array, f"`{array}`"
        # A local array's word comes from its multiplexer after the registered address; a
        # parameter's from the memory outside.
        depth = op.attrs.get("local_depth")
        read_out = model.memory_clock_to_out if depth is None else model.memory_read(depth)
        if op.attrs.get("first_iteration_only"):
            return OperatorType(f"first-read:{array_label}", latency=1, incoming_delay=model.memory_setup,
                                outgoing_delay=read_out, description=f"first-iteration read of {where}")
        direction = entry.port
        return OperatorType(f"{direction}:{array_label}", latency=1, incoming_delay=model.memory_setup,
                            outgoing_delay=read_out if direction == "read" else 0.0,
                            limit=array_ports.get(direction, 1), description=f"{direction} port of {where}")
    limited = next((name for name in entry.limited_by if name in target.resources), None)
    timing = entry.timing_of(target.delay_model, period, op, shared=limited is not None)
    if limited is not None and entry.unit is not None:
        # One shared type per unit: instances of different units are different hardware.
        name = entry.unit.resource_name(limited, op)
        limit, description = target.resources[limited], f"{limited} unit ({timing.description})"
    elif limited is not None:
        name, limit, description = limited, target.resources[limited], f"{limited} unit"
    elif timing.type_name is not None:
        # A unit built for its operand shapes: one type per shape pair, named by its hardware.
        name, limit, description = timing.type_name, None, timing.description
    else:
        # Named by its own description only where its type is not simply kind and width.
        name, limit = entry.type_name_of(op), None
        description = entry.description if entry.type_name is not None else ""
    return OperatorType(name, latency=timing.latency, incoming_delay=timing.incoming_delay,
                        outgoing_delay=timing.outgoing_delay, limit=limit, description=description)


def _shared_unit_types(block: Block, target: Target, type_of: dict) -> dict:
    """Operator types of shared instances built as units: timed for the operand shapes that
    cover every user (the instance's inputs, :func:`hls.ir.ops.covering_shape`)."""
    users: dict[str, list[Op]] = {}
    for op, optype in type_of.items():
        if optype.limit is not None and operator_of(op.kind).has_unit:
            users.setdefault(optype.name, []).append(op)
    types = {}
    for name, ops in users.items():
        shapes = [covering_shape([op.operands[index].shape for op in ops]) for index in range(len(ops[0].operands))]
        timing = operator_of(ops[0].kind).timing_over(target.delay_model, target.usable_period_ns, shapes,
                                                      ops[0].attrs)
        if timing is not None:
            previous = type_of[ops[0]]
            types[name] = OperatorType(name, latency=timing.latency, incoming_delay=timing.incoming_delay,
                                       outgoing_delay=timing.outgoing_delay, limit=previous.limit,
                                       description=f"{previous.description} ({timing.description})")
    return types


def _cone_types(block: Block, target: Target, type_of: dict) -> None:
    """Bitwise operations timed as the LUT cones synthesis maps them to (:mod:`.logic_cones`):
    each its own type, whose delay is the LUT levels it adds to its cone."""
    cones = cone_levels(block)
    for op, optype in type_of.items():
        increment = cones.increment.get(op.name)
        if (increment is None or optype.limit is not None or optype.latency
                or operator_of(op.kind).category != "logic"):
            continue
        type_of[op] = OperatorType(f"{optype.name}/cone+{increment}",
                                   incoming_delay=increment * target.delay_model.cone_level,
                                   description=f"{optype.name} in a bitwise cone, adding {increment} "
                                               f"LUT level{'' if increment == 1 else 's'}")


def _producer(op: Op, model) -> Op:
    """The operation whose result ``op`` passes on: ``op`` itself, or through wiring (a wrap to
    an assigned shape, a shift or a multiplication by a constant that synthesis makes wires:
    no delay on ``model``) the operation before it."""
    while True:
        entry = operator_of(op.kind)
        signals = [operand for operand in op.operands if operand.kind != "const"]
        wiring = entry.category == "wire" or (entry.category == "logic" and entry.unit is None
                                               and entry.op_delay is None and entry.delay_of(model, op) == 0.0)
        if len(signals) != 1 or not wiring:
            return op
        op = signals[0]


def build_problem(block: Block, target: Target, *, loop: PipelinedLoop | None = None,
                  cones: bool = True) -> BlockProblem:
    """The scheduling problem of ``block`` for ``target``; cyclic when ``loop`` is the pipelined
    loop it is the body of.  With ``cones``, bitwise logic is timed by the LUT levels of its
    cones (:mod:`hls.analysis.logic_cones`), otherwise operator by operator.

    Raises
    ------
    TypeError
        If ``target`` is not an :class:`hls.Target`.
    hls.ir.ops.UnknownOperatorError
        For an operation whose kind is not in the operator table.
    """
    if not isinstance(target, Target):
        raise TypeError(f"build_problem takes an hls.Target, not {target!r}")
    problem = Problem(target.usable_period_ns, name=loop.name if loop is not None else block.name)
    result = BlockProblem(problem, block, loop is not None)
    type_of = {op: _operator_type(op, target, {}) for op in block.ops}
    if cones:
        _cone_types(block, target, type_of)
    for optype in type_of.values():
        previous = problem.operator_types.get(optype.name)
        # A shared (limited) type serves several widths: size it for the slowest.
        if previous is None or (optype.latency, optype.incoming_delay) > (previous.latency, previous.incoming_delay):
            problem.operator_types[optype.name] = optype
    problem.operator_types.update(_shared_unit_types(block, target, type_of))
    for op in block.ops:
        problem.add_operation(Operation(op.name, type_of[op].name, op.lines, op.text))
        result.ops[op.name] = op
        if problem.operator_type_of(op.name).latency >= 1 and operator_of(op.kind).category == "logic":
            result.slow_ops.append(op)
    limited = [op for op in block.ops if problem.operator_type_of(op.name).limit]
    partners = {op: [other for other in limited if other is not op
                     and problem.operations[other.name].operator_type == problem.operations[op.name].operator_type
                     and exclusive(op, other)]
                for op in limited}
    model = target.delay_model
    producer = {op.name: _producer(op, model) for op in block.ops}
    users: dict[str, int] = {}
    for op in block.ops:
        if producer[op.name] is op:     # wiring passes its operand on; its users count
            for operand in op.operands:
                source = producer.get(operand.name) or _producer(operand, model)
                users[source.name] = users.get(source.name, 0) + 1
    for op in block.ops:
        entry = operator_of(op.kind)
        for operand in op.operands:
            # Routing from one carry chain into the next, where op chains on the operand.
            source = producer.get(operand.name) or _producer(operand, model)
            route = entry.entry_routing(model, operator_of(source.kind), users.get(source.name, 0))
            problem.add_dependence(Dependence(operand.name, op.name, 0, "data", route_delay=route))
        if op.predicate is None:
            continue
        if operator_of(op.kind).has_effect or partners.get(op):
            # A stream operation's request (its valid bit and predicate) decides the stall,
            # which reaches the enable of every register of the kernel: its predicate chains
            # into it only where the stall's logic fits after it, else comes from a register.
            tail = target.delay_model.stream_stall if operator_of(op.kind).category == "stream" else 0.0
            problem.add_dependence(Dependence(op.predicate.name, op.name, 0, "control", tail_delay=tail))
        elif op in partners:
            # Nothing could share its instance in its cycle, so nothing needs the predicate to
            # choose: the request is made speculatively (a read cannot fault).
            result.speculated.add(op.name)
    live_ins, commits = block.live_ins(), block.commits()
    carries = {op.attrs["var"]: op for op in block.ops if operator_of(op.kind).category == "carry"}
    if loop is not None:
        # The next iteration reads the carried value; the variable's own register is only
        # written by iterations that survive, after every exit that could squash them.
        for var, carry in carries.items():
            problem.add_dependence(Dependence(live_ins[var].name, carry.name, 0, "data"))
            problem.add_dependence(Dependence(carry.name, live_ins[var].name, 1, "data"))
        effects = [op for op in block.ops if operator_of(op.kind).has_effect]
        for exit in loop.exit_ops:
            for effect in effects:
                problem.add_dependence(Dependence(exit.name, effect.name, 1, "exit"))
    else:
        for var, commit in commits.items():
            if var in live_ins:
                problem.add_dependence(Dependence(live_ins[var].name, commit.name, 0, "data"))
    streams: dict[str, list[Op]] = {}
    for op in block.ops:
        if operator_of(op.kind).category == "stream":
            streams.setdefault(op.attrs["stream"], []).append(op)
            if loop is None:
                result.earliest_cycle[op.name] = 1
    for accesses in streams.values():
        # One port per stream (limit 1) puts them in different cycles; these keep them in order.
        for before, after in zip(accesses, accesses[1:]):
            problem.add_dependence(Dependence(before.name, after.name, 0, "stream"))
        if loop is not None and len(accesses) > 1:
            problem.add_dependence(Dependence(accesses[-1].name, accesses[0].name, 1, "stream"))
    forwarded = forwarded_pairs(block)
    for dep in loop_dependences(loop) if loop else memory_dependences(block):
        distance = dep.distance
        if distance >= 1 and dep.dst.attrs.get("first_iteration_only"):
            continue    # it reads the memory only before any older iteration exists
        if distance == 1 and (dep.src, dep.dst) in forwarded:
            distance = 2    # the previous iteration's store is forwarded; the one before must be in memory
        problem.add_dependence(Dependence(dep.src.name, dep.dst.name, distance, "memory"))
    firsts = [op for op in block.ops if operator_of(op.kind).reads_memory and op.attrs.get("first_iteration_only")]
    for position, first in enumerate(firsts):
        # In the first iteration it uses the read port: before any other read of the array.
        # Several such reads (`a[0] += x; a[1] += y`) take it one after another, in program order.
        for other in block.ops:
            if operator_of(other.kind).reads_memory and other is not first and other.attrs["array"] == first.attrs["array"] \
                    and other not in firsts[:position] and other.attrs.get("bank") == first.attrs.get("bank"):
                problem.add_dependence(Dependence(first.name, other.name, 0, "memory"))
    for op in block.ops:
        if op.kind == "forward":
            for store in op.attrs["stores"]:
                for source in store.inputs():
                    problem.add_dependence(Dependence(source.name, op.name, 1, "memory"))
    for i, a in enumerate(limited):
        for b in limited[i + 1:]:
            if b in partners[a]:
                problem.add_exclusion(a.name, b.name)
    return result
