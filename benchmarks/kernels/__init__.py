"""The benchmark kernels of issues 4 and 5, one file per kernel.

Each file ``NAME.py`` defines the ``@hls.kernel`` function ``NAME`` and
``EXAMPLES``, a list of argument dicts (lists for arrays, exactly ``depth``
elements). The files are imported by path, so each also works on its own:
``axhls compile benchmarks/kernels/vsum.py:vsum -o out``.
"""

from __future__ import annotations

import os

__all__ = ["KERNEL_NAMES", "all_kernels", "load"]

_DIRECTORY = os.path.dirname(os.path.abspath(__file__))

#: In the order of the issues: issue 4's kernels, then issue 5's, then issue 11's flattened nests and
#: its nest whose inner runs overlap (row_scan), then issue 20's nests: imperfect nests that read an
#: element before the inner loop and write it after, an inner break, row bounds read into variables,
#: and the first of these over a run-time row count, beyond the exact dependence test.
KERNEL_NAMES = (
    "vsum", "dot16", "gsumif", "if_loop", "stream_proc", "conv3x3", "matvec", "fir", "argmax",
    "find_first_while", "find_first_break", "histogram", "weighted_histogram", "prefix_sum",
    "insertion_sort", "csr_spmv", "bipartite_matching", "list_walk", "collatz",
    "matmul", "trmv", "conv3x3_linebuf", "row_scan", "matmul_acc", "row_update", "row_first_match", "csr_rows",
    "matmul_acc_rows",
)


def path(name: str) -> str:
    """The file defining kernel ``name``."""
    return os.path.join(_DIRECTORY, f"{name}.py")


def load(name: str):
    """``(kernel, EXAMPLES)`` of the benchmark kernel ``name``.

    Raises
    ------
    KeyError
        If there is no benchmark kernel of that name.
    """
    if name not in KERNEL_NAMES:
        raise KeyError(f"no benchmark kernel {name!r}; known: {', '.join(KERNEL_NAMES)}")
    from axhls.loading import import_file
    module = import_file(path(name))
    return getattr(module, name), module.EXAMPLES


def all_kernels() -> dict[str, tuple]:
    """``{name: (kernel, EXAMPLES)}`` for every benchmark kernel, in ``KERNEL_NAMES`` order."""
    return {name: load(name) for name in KERNEL_NAMES}
