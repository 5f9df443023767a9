"""The modulo reservation table every algorithm shares, and the binder.

For each operator type with a ``limit``, the table records which operations
hold its instances in each modulo slot (``start % II``).  Operations of one
slot fit when the instances they need do not exceed the limit: operations
starting in different cycles belong to different iterations and never share;
those starting in the same cycle share an instance when they are mutually
exclusive, as many instances as :func:`~hls.schedule.sharing.instances_needed`
finds for them.

:func:`bind` turns final start times into a binding (an instance index for
each operation of a limited type) in the same way, so the binding an
algorithm returns is the grouping its own fit test counted.
"""

from __future__ import annotations

from .problem import Problem
from .sharing import instances_needed

__all__ = ["ReservationTable", "bind"]


class ReservationTable:
    """Modulo slots x instances of every limited operator type.

    Parameters
    ----------
    problem : Problem
        Supplies the operator types, their limits and the exclusions.
    ii : int or None
        The initiation interval; ``None`` for a schedule whose iterations
        never overlap, where slots are plain cycles.
    relaxed : bool
        Count the instances of a cycle's operations with the lower bound of
        :func:`~hls.schedule.sharing.instances_needed` instead of the upper
        one: for lower bounds on the II, not for schedules.  They differ only
        if the exact colouring runs out of budget.
    """

    def __init__(self, problem: Problem, ii: int | None, *, relaxed: bool = False):
        self.problem = problem
        self.ii = ii
        self.relaxed = relaxed
        self.sharing = bool(problem.exclusions)
        # (operator type, slot) -> {operation: start cycle}, in reservation order.
        self._slots: dict[tuple[str, int], dict[str, int]] = {}
        self._held: dict[str, tuple[str, int]] = {}
        # Operation -> (its limited type, the limit); absent when unlimited.
        self._limited: dict[str, tuple[str, int]] = {}
        for name, operation in problem.operations.items():
            optype = problem.operator_types[operation.operator_type]
            if optype.limit is not None:
                self._limited[name] = (optype.name, optype.limit)

    def _key(self, name: str, cycle: int) -> tuple[str, int] | None:
        limited = self._limited.get(name)
        if limited is None:
            return None
        return limited[0], cycle if self.ii is None else cycle % self.ii

    def holders(self, name: str, cycle: int) -> list[str]:
        """The operations holding an instance of ``name``'s type in the slot of ``cycle``."""
        key = self._key(name, cycle)
        return [] if key is None else list(self._slots.get(key, {}))

    def fits(self, name: str, cycle: int, *, ignoring: str | None = None) -> bool:
        """Whether ``name`` starting at ``cycle`` leaves its slot within the
        limit (always, for an unlimited type), not counting ``ignoring``."""
        key = self._key(name, cycle)
        if key is None:
            return True
        limit = self._limited[name][1]
        holders = self._slots.get(key, {})
        count = len(holders) + 1 - (name in holders) - (ignoring is not None and ignoring != name
                                                         and ignoring in holders)
        if count <= limit:
            return True     # one instance each
        if not self.sharing:
            return False
        cycles = {other: other_cycle for other, other_cycle in holders.items()
                  if other != ignoring and other != name}
        cycles[name] = cycle
        return self._needed(cycles) <= limit

    def _needed(self, cycles: dict[str, int]) -> int:
        """Instances the operations need, each with its start cycle, in one slot."""
        by_cycle: dict[int, list[str]] = {}
        for other, other_cycle in cycles.items():
            by_cycle.setdefault(other_cycle, []).append(other)
        needed = (instances_needed(self.problem, group) for group in by_cycle.values())
        return sum(bounds.lower if self.relaxed else bounds.upper for bounds in needed)

    def reserve(self, name: str, cycle: int) -> None:
        """Record ``name`` at ``cycle`` (whether or not it fits; see :meth:`fits`)."""
        key = self._key(name, cycle)
        if key is None:
            return
        if name in self._held:
            self.release(name)
        self._slots.setdefault(key, {})[name] = cycle
        self._held[name] = key

    def release(self, name: str) -> None:
        """Forget ``name``'s reservation, if it has one."""
        key = self._held.pop(name, None)
        if key is not None:
            del self._slots[key][name]

    def binding(self) -> dict[str, int]:
        """An instance index for every reserved operation.

        In each slot the operations of each start cycle, in cycle order, take
        the next instances, one per group of the grouping
        :func:`~hls.schedule.sharing.instances_needed` gives them (pairwise
        exclusive operations of one cycle share).  When every slot fits, each
        index is below its type's limit.
        """
        binding: dict[str, int] = {}
        for key in sorted(self._slots):
            by_cycle: dict[int, list[str]] = {}
            for name, cycle in self._slots[key].items():
                by_cycle.setdefault(cycle, []).append(name)
            instance = 0
            for cycle in sorted(by_cycle):
                for group in instances_needed(self.problem, by_cycle[cycle]).groups:
                    for name in group:
                        binding[name] = instance
                    instance += 1
        return binding


def bind(problem: Problem, ii: int | None, start: dict[str, int]) -> dict[str, int]:
    """The binding of every operation of a limited type, given its start cycle.

    Parameters
    ----------
    problem : Problem
    ii : int or None
        The II, or ``None`` when iterations never overlap (slots are cycles).
    start : dict of str to int
        Start cycle of every operation.

    Returns
    -------
    dict of str to int
        Operation -> instance index, in problem order.  If some slot needs more
        instances than the limit, indices reach past it, and
        :func:`hls.schedule.verify.verify` rejects the schedule.
    """
    table = ReservationTable(problem, ii)
    for name in problem.operations:
        table.reserve(name, start[name])
    binding = table.binding()
    return {name: binding[name] for name in problem.operations if name in binding}
