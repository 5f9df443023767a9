"""The modulo scheduling problem, kept apart from the algorithms that solve it.

Modelled on CIRCT's scheduling library (``ChainingCyclicProblem`` with shared
operators): a problem is a set of operations, each an instance of an
:class:`OperatorType`, linked by :class:`Dependence` edges that may cross
iterations (``distance``), under a clock period that allows combinational
operators to be chained within one cycle.

A :class:`Schedule` is any candidate solution; :mod:`hls.schedule.verify`
checks one against its problem, whatever algorithm produced it.

Timing model
------------
Every operation ``op`` gets a start cycle ``start[op]`` (an integer >= 0) and an
offset ``start_in_cycle[op]`` in nanoseconds inside that cycle.

* An operator with ``latency == 0`` is combinational: its result is available
  at ``start_in_cycle + incoming_delay`` in the same cycle (chaining).
* An operator with ``latency >= 1`` registers its result: it is available at
  cycle ``start + latency``, at offset ``outgoing_delay`` within that cycle.
  ``incoming_delay`` is the logic before its input register (for example the
  address decode of a memory read).

For a dependence ``src -> dst`` with iteration distance ``d`` and loop
initiation interval ``II``, the value leaves ``src`` in iteration ``i`` and is
used by ``dst`` in iteration ``i + d``.  Measured on one time line::

    ready_cycle(src)  = start[src] + latency[src]
    ready_offset(src) = start_in_cycle[src] + incoming_delay[src]   if latency == 0
                      = outgoing_delay[src]                          otherwise
    start[dst] + d*II  >  ready_cycle(src)          , or
    start[dst] + d*II == ready_cycle(src)  and  start_in_cycle[dst] >= ready_offset(src)

A dependence with *routing* (:attr:`Dependence.route_delay`) adds it to a result
ready at an offset ``o > 0``: ``ready_offset + route_delay`` is when ``dst`` can chain on
it (a result at offset 0 is a register's output, whose routing the register overhead
holds).

A dependence with a *tail* (:attr:`Dependence.tail_delay`) chains only where the
result and the tail fit the period: a result ready at an offset ``o > 0`` with
``o + tail_delay > clock_period_ns`` counts as ready at the start of the next
cycle, ``(ready_cycle + 1, 0)``, so that ``dst`` takes it from a register.  (A
result ready at offset 0 is a register's output: a later cycle would not shorten
its tail.)

and every operation must finish within its cycle::

    start_in_cycle[op] + incoming_delay[op] <= clock_period_ns

All comparisons of offsets allow a tolerance of :data:`EPSILON` ns, so that
sums of delays such as ``0.1 + 0.2`` do not spuriously overflow the period.

Resources
---------
An operator type with a ``limit`` has that many instances, each fully
pipelined: an operation occupies an instance only in its start cycle, so in
each modulo slot (``start % II``) at most ``limit`` instances may be busy.
Operations that are *mutually exclusive* (they sit on branches of the same
``if`` that can never both be taken in one iteration, see
:meth:`Problem.add_exclusion`) may share one instance in the same slot *if
they also start in the same cycle*; that is what makes the problem
control-flow-aware.  Exclusion is a property of one iteration: two exclusive
operations whose start cycles differ by a multiple of II land in the same
slot but belong to different iterations, which can both take their branch,
so they need two instances.

A schedule also names the instance each operation of a limited type uses
(:attr:`Schedule.binding`, an index ``0 <= k < limit``): the hardware builds
exactly those instances, so the verifier checks the binding, not only that
one exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import networkx as nx

__all__ = ["OperatorType", "Operation", "Dependence", "Problem", "Schedule", "ProblemError",
           "DEPENDENCE_KINDS", "EPSILON"]

#: Kinds of dependence, used to explain what bounds the II.
DEPENDENCE_KINDS = ("data", "memory", "exit", "control", "stream")

#: Tolerance in ns when comparing chained delays against offsets and the clock period.
EPSILON = 1e-9


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class ProblemError(ValueError):
    """A malformed problem: unknown names, bad parameters, a cycle of
    distance-0 dependences, or an operator too slow for the clock period."""


@dataclass(frozen=True)
class OperatorType:
    """A kind of hardware operator.

    Parameters
    ----------
    name : str
        Unique name, for example ``"add32"`` or ``"read:a"``.
    latency : int
        Cycles until the result is registered; 0 for combinational logic.
    incoming_delay : float
        Combinational delay in ns from the inputs to the result (latency 0)
        or to the input register (latency >= 1).
    outgoing_delay : float
        For latency >= 1: delay in ns from the clock edge to a valid output.
        Ignored for latency 0.
    limit : int or None
        Number of instances available; ``None`` means unlimited.
    description : str
        How messages name it, for example ``"read port of `a`"`` or
        ``"multiplier"``; defaults to the quoted ``name``.
    """

    name: str
    latency: int = 0
    incoming_delay: float = 0.0
    outgoing_delay: float = 0.0
    limit: int | None = None
    description: str = ""

    @property
    def label(self) -> str:
        """The name used in messages."""
        return self.description or f"`{self.name}`"

    def __post_init__(self):
        if not _is_int(self.latency) or self.latency < 0:
            raise ProblemError(f"operator type {self.name!r}: latency must be an integer >= 0, "
                               f"not {self.latency!r}")
        if not (self.incoming_delay >= 0 and self.outgoing_delay >= 0):  # also rejects NaN
            raise ProblemError(f"operator type {self.name!r}: delays must be >= 0 ns, not "
                               f"incoming {self.incoming_delay!r}, outgoing {self.outgoing_delay!r}")
        if self.limit is not None and (not _is_int(self.limit) or self.limit < 1):
            raise ProblemError(f"operator type {self.name!r}: limit must be an integer >= 1 or None, "
                               f"not {self.limit!r}")


@dataclass(frozen=True)
class Operation:
    """One operation of the loop body.

    Parameters
    ----------
    name : str
        Unique name within the problem.
    operator_type : str
        Name of its :class:`OperatorType`.
    lines : tuple of int
        The user's source lines this operation comes from, used to explain
        what bounds the II.
    description : str
        How messages name it, for example ``"s"`` for the update of the
        variable ``s`` or ``"a[i]"`` for an array access; defaults to ``name``.
    """

    name: str
    operator_type: str
    lines: tuple[int, ...] = ()
    description: str = ""

    @property
    def label(self) -> str:
        """The name used in messages, quoted."""
        return f"`{self.description or self.name}`"


@dataclass(frozen=True)
class Dependence:
    """``dst`` of iteration ``i + distance`` depends on ``src`` of iteration ``i``.

    Parameters
    ----------
    src, dst : str
        Operation names.
    distance : int
        Iteration distance, >= 0.  Edges with distance 0 must form a DAG.
    kind : str
        One of ``"data"``, ``"memory"``, ``"exit"``, ``"control"`` or ``"stream"`` (the
        order of one stream's tokens); it only
        explains the bound, the timing rule is the same for all kinds.
    tail_delay : float
        ns of logic that ``src``'s result drives through ``dst`` into registers, besides
        ``dst``'s own chain (a stream operation's predicate, through the stall, into the enable
        of every register: :mod:`hls.analysis.block_problems`).  ``dst`` may chain on the
        result only where it is ready that long before the period ends; otherwise it takes
        it from a register in a later cycle (see the timing model).
    route_delay : float
        ns of routing from ``src``'s result into ``dst`` beyond the hop that ``src``'s own
        delay holds, paid only where ``dst`` chains on the result in the cycle it is computed
        (a carry chain entered from another carry chain: :meth:`hls.ir.ops.Operator.entry_routing`).
        A result taken from a register pays none: the register overhead holds its routing.
    """

    src: str
    dst: str
    distance: int = 0
    kind: str = "data"
    tail_delay: float = 0.0
    route_delay: float = 0.0

    def __post_init__(self):
        if not self.tail_delay >= 0:  # also rejects NaN
            raise ProblemError(f"dependence {self.src}->{self.dst}: tail_delay must be >= 0 ns, "
                               f"not {self.tail_delay!r}")
        if not self.route_delay >= 0:  # also rejects NaN
            raise ProblemError(f"dependence {self.src}->{self.dst}: route_delay must be >= 0 ns, "
                               f"not {self.route_delay!r}")
        if not _is_int(self.distance) or self.distance < 0:
            raise ProblemError(f"dependence {self.src}->{self.dst}: distance must be an integer >= 0, "
                               f"not {self.distance!r}")
        if self.kind not in DEPENDENCE_KINDS:
            raise ProblemError(f"dependence {self.src}->{self.dst}: kind must be one of {DEPENDENCE_KINDS}, "
                             f"not {self.kind!r}")


@dataclass
class Problem:
    """A cyclic (modulo) scheduling problem with chaining and shared operators.

    Parameters
    ----------
    clock_period_ns : float
        Target clock period; chained combinational delay must fit in it.
    name : str
        For messages only.
    """

    clock_period_ns: float
    name: str = "loop"
    operator_types: dict[str, OperatorType] = field(default_factory=dict)
    operations: dict[str, Operation] = field(default_factory=dict)
    dependences: list[Dependence] = field(default_factory=list)
    #: Pairs of mutually exclusive operations, in the order they were declared
    #: (a dict used as an ordered set, so that nothing built from it depends
    #: on string hashing, that is on ``PYTHONHASHSEED``).
    exclusions: dict[frozenset[str], None] = field(default_factory=dict)

    def __post_init__(self):
        if not self.clock_period_ns > 0 or self.clock_period_ns == float("inf"):
            raise ProblemError(f"clock_period_ns must be a finite number > 0, not {self.clock_period_ns!r}")
        if not isinstance(self.exclusions, dict):
            # Accept any iterable of pairs; keep the order it gives.
            self.exclusions = dict.fromkeys(frozenset(pair) for pair in self.exclusions)
        self._adjacency = None

    # -- building ---------------------------------------------------------
    def add_operator_type(self, operator_type: OperatorType) -> OperatorType:
        existing = self.operator_types.get(operator_type.name)
        if existing is not None and existing != operator_type:
            raise ProblemError(f"operator type {operator_type.name!r} is already defined as {existing}")
        self.operator_types[operator_type.name] = operator_type
        return operator_type

    def add_operation(self, operation: Operation) -> Operation:
        if operation.name in self.operations:
            raise ProblemError(f"operation {operation.name!r} is already defined")
        if operation.operator_type not in self.operator_types:
            raise ProblemError(f"operation {operation.name!r}: unknown operator type {operation.operator_type!r}")
        self.operations[operation.name] = operation
        return operation

    def add_dependence(self, dependence: Dependence) -> Dependence:
        for end in (dependence.src, dependence.dst):
            if end not in self.operations:
                raise ProblemError(f"dependence {dependence.src}->{dependence.dst}: unknown operation {end!r}")
        self.dependences.append(dependence)
        return dependence

    def add_exclusion(self, a: str, b: str) -> None:
        """Declare that ``a`` and ``b`` never both execute in one iteration."""
        for end in (a, b):
            if end not in self.operations:
                raise ProblemError(f"exclusion {a}/{b}: unknown operation {end!r}")
        if a != b:
            self.exclusions[frozenset((a, b))] = None

    # -- queries ----------------------------------------------------------
    def operator_type_of(self, op: str) -> OperatorType:
        return self.operator_types[self.operations[op].operator_type]

    def are_exclusive(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self.exclusions

    def limited_operator_types(self) -> Iterable[OperatorType]:
        return (t for t in self.operator_types.values() if t.limit is not None)

    def users_of(self, operator_type: str) -> list[str]:
        return [op.name for op in self.operations.values() if op.operator_type == operator_type]

    def predecessors(self, op: str) -> list[Dependence]:
        """The dependences into ``op``, in the order they were added."""
        return self._adjacency_lists()[0][op]

    def successors(self, op: str) -> list[Dependence]:
        """The dependences out of ``op``, in the order they were added."""
        return self._adjacency_lists()[1][op]

    def _adjacency_lists(self) -> tuple[dict[str, list[Dependence]], dict[str, list[Dependence]]]:
        # Built once and reused by every algorithm; rebuilt when operations or
        # dependences were added since (through the add_* methods, or by
        # replacing or growing the lists directly).
        key = (id(self.dependences), len(self.dependences), len(self.operations))
        if self._adjacency is None or self._adjacency[0] != key:
            predecessors: dict[str, list[Dependence]] = {name: [] for name in self.operations}
            successors: dict[str, list[Dependence]] = {name: [] for name in self.operations}
            for dep in self.dependences:
                predecessors[dep.dst].append(dep)
                successors[dep.src].append(dep)
            self._adjacency = (key, predecessors, successors)
        return self._adjacency[1], self._adjacency[2]

    def check(self) -> None:
        """Reject problems that no schedule can satisfy at any II.

        Raises
        ------
        ProblemError
            If an operation's ``incoming_delay`` exceeds the clock period (it
            cannot fit in any cycle), or if dependences of distance 0 form a
            cycle (an operation would depend on itself within one iteration).
        """
        for op in self.operations.values():
            optype = self.operator_types[op.operator_type]
            if optype.incoming_delay > self.clock_period_ns + EPSILON:
                raise ProblemError(
                    f"operation {op.name!r} (type {optype.name!r}) needs {optype.incoming_delay:.2f} ns, "
                    f"more than the clock period of {self.clock_period_ns:.2f} ns; "
                    f"give the operator a latency or lower the clock frequency")
        graph = nx.DiGraph()
        graph.add_nodes_from(self.operations)
        graph.add_edges_from((dep.src, dep.dst) for dep in self.dependences if dep.distance == 0)
        try:
            cycle = nx.find_cycle(graph)
        except nx.NetworkXNoCycle:
            return
        names = " -> ".join([src for src, _dst in cycle] + [cycle[0][0]])
        raise ProblemError(f"dependences of distance 0 form a cycle {names}; "
                           f"within one iteration an operation cannot depend on itself")

    def to_networkx(self):
        """The dependence graph as a ``networkx.MultiDiGraph``.

        Nodes are operation names with attribute ``operation``; each edge has
        attributes ``distance`` and ``kind``.
        """
        graph = nx.MultiDiGraph()
        for op in self.operations.values():
            graph.add_node(op.name, operation=op)
        for dep in self.dependences:
            graph.add_edge(dep.src, dep.dst, distance=dep.distance, kind=dep.kind)
        return graph


@dataclass
class Schedule:
    """A candidate solution of a :class:`Problem`.

    Attributes
    ----------
    ii : int
        Initiation interval in cycles.
    start : dict of str to int
        Start cycle of each operation, relative to the iteration's start.
    start_in_cycle : dict of str to float
        Offset in ns within the start cycle (chaining); 0.0 when absent.
    binding : dict of str to int
        For each operation of a limited operator type, the instance it uses,
        ``0 <= binding[op] < limit``; every algorithm fills it in (with
        :func:`hls.schedule.reservation.bind`), and the back end builds
        exactly these instances.
    """

    ii: int
    start: dict[str, int]
    start_in_cycle: dict[str, float] = field(default_factory=dict)
    binding: dict[str, int] = field(default_factory=dict)

    def offset(self, op: str) -> float:
        return self.start_in_cycle.get(op, 0.0)

    def ready(self, problem: Problem, op: str) -> tuple[int, float]:
        """``(cycle, offset)`` at which ``op``'s result can be used."""
        optype = problem.operator_type_of(op)
        if optype.latency == 0:
            return self.start[op], self.offset(op) + optype.incoming_delay
        return self.start[op] + optype.latency, optype.outgoing_delay

    def depth(self, problem: Problem) -> int:
        """Number of cycles one iteration (or one run of a block) occupies.

        Counted from the iteration's cycle 0 (start cycles are relative to
        it) to the cycle in which its last result is registered, both
        included: an operation started at cycle ``c`` ends at
        ``c + max(latency, 1)`` (a combinational result is registered at the
        end of its cycle, a registered one is available at ``c + latency``),
        and the depth is the latest end.  0 for an empty problem.  This is
        the one definition of depth: the pipeline depth in reports, the
        length of a block's valid chain in the hardware, and the II of
        :func:`~hls.schedule.sequential.schedule_sequential`.  Every
        algorithm starts its first operation at cycle 0.
        """
        if not self.start:
            return 0
        return max(self.start[op] + max(problem.operator_type_of(op).latency, 1) for op in self.start)
