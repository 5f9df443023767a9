"""Describing a schedule to people: its depth and a debug table."""

from __future__ import annotations

from .problem import Problem, Schedule

__all__ = ["depth", "format_schedule"]


def depth(problem: Problem, schedule: Schedule) -> int:
    """Number of cycles (pipeline stages) one iteration occupies:
    :meth:`Schedule.depth`, the one definition.

    A loop of ``n`` iterations takes ``(n - 1) * II + depth`` cycles, plus
    its control overhead.
    """
    return schedule.depth(problem)


def format_schedule(problem: Problem, schedule: Schedule) -> str:
    """A text table of the schedule, one operation per line, by start time.

    Columns: start cycle, modulo slot, offset in ns within the cycle,
    operation, operator type (with latency and delay) and source lines.
    """
    header = (f"{problem.name}: II {schedule.ii}, depth {depth(problem, schedule)}, "
              f"clock {problem.clock_period_ns:g} ns")
    rows = [("cycle", "slot", "ns", "operation", "type", "lines")]
    for name in sorted(problem.operations, key=lambda name: (schedule.start[name], schedule.offset(name), name)):
        operation = problem.operations[name]
        optype = problem.operator_types[operation.operator_type]
        timing = f"{optype.latency}c" if optype.latency else f"{optype.incoming_delay:g}ns"
        rows.append((str(schedule.start[name]), str(schedule.start[name] % schedule.ii),
                     f"{schedule.offset(name):g}", name, f"{optype.name} ({timing})",
                     ",".join(map(str, operation.lines))))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = [header]
    for row in rows:
        cells = [cell.rjust(width) if column < 3 else cell.ljust(width)
                 for column, (cell, width) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
