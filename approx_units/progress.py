"""Progress bars of the long runs (exports, sweeps, surveys, Pareto fronts): tqdm on stderr.

A bar shows how many steps are done of how many, the rate, and tqdm's estimate
of the time left from the steps done so far.  By default it appears only when
stderr is a terminal, so that logs, pipes, ``--json`` runs and tests see
exactly the lines they saw before; ``enabled=True`` forces it on (the
commands' ``--progress``).  Lines logged while a bar is shown go through
:func:`write`, which keeps the bar below them.
"""

from __future__ import annotations

import sys

from tqdm import tqdm

__all__ = ["bar", "write"]


def bar(total: int, *, unit: str, description: str, enabled: bool | None = None) -> tqdm:
    """A progress bar of ``total`` steps on stderr; use it as a context manager.

    Parameters
    ----------
    unit : str
        What one step is (``"run"``, ``"job"``, ``"circuit"``).
    description : str
        Shown before the bar.
    enabled : bool or None
        ``None``: only when stderr is a terminal.
    """
    shown = sys.stderr.isatty() if enabled is None else enabled
    return tqdm(total=total, unit=unit, desc=description, file=sys.stderr, disable=not shown, leave=False,
                dynamic_ncols=True)


def write(line: str) -> None:
    """Print ``line`` on stderr above any progress bar being shown."""
    tqdm.write(line, file=sys.stderr)
