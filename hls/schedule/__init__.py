"""Modulo scheduling for the HLS compiler, in the manner of CIRCT's
scheduling library: the problem (:mod:`.problem`), the algorithms
(:mod:`.modulo`, :mod:`.search`, :mod:`.sequential`), the reservation table
and binder they share (:mod:`.reservation`), the lower bound on the II and its
explanation (:mod:`.mii`) and an independent verifier (:mod:`.verify`).
``schedule(problem, algorithm="search")`` swaps the algorithm.
See ``docs/scheduler.md``.
"""

from .mii import BOUND_KINDS, MIIBound, minimum_ii, rec_mii, res_mii
from .modulo import (ALGORITHMS, IIBelowMIIError, NoScheduleError, iterative_modulo_schedule, modulo_schedule,
                     schedule)
from .problem import (DEPENDENCE_KINDS, Dependence, Operation, OperatorType, Problem, ProblemError,
                      Schedule)
from .debug_table import depth, format_schedule
from .reservation import ReservationTable, bind
from .search import search_modulo_schedule
from .sequential import schedule_sequential
from .verify import ScheduleError, verify

__all__ = [
    "OperatorType", "Operation", "Dependence", "Problem", "Schedule", "ProblemError", "DEPENDENCE_KINDS",
    "MIIBound", "BOUND_KINDS", "minimum_ii", "res_mii", "rec_mii",
    "schedule", "modulo_schedule", "iterative_modulo_schedule", "search_modulo_schedule", "schedule_sequential",
    "ALGORITHMS", "IIBelowMIIError", "NoScheduleError", "ReservationTable", "bind",
    "verify", "ScheduleError", "depth", "format_schedule",
]
