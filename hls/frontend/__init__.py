"""The HLS front end: checks a kernel, inlines helpers, infers shapes.

``analyze(kernel) -> TypedKernel`` is the contract with the IR builder (see
``docs/architecture.md``); ``shape_of(node)`` gives the shape of any
expression of ``TypedKernel.body``.
"""

from .analyze import analyze
from .typed import LoopPragma, Param, TypedKernel, shape_of

__all__ = ["analyze", "shape_of", "TypedKernel", "Param", "LoopPragma"]
