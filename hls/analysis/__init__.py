"""Analyses over the IR: predicates, memory dependences, forwarding and scheduling problems."""

from .forwarding import insert_forwarding
from .memdep import MemoryDependence, affine_form, memory_dependences
from .predicates import exclusive
from .block_problems import BlockProblem, build_problem

__all__ = ["insert_forwarding", "MemoryDependence", "affine_form", "memory_dependences", "exclusive",
           "BlockProblem", "build_problem"]
