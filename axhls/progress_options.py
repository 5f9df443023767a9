"""How a long command shows its progress: ``--progress``, and the log lines around the bar.

The commands that can run for minutes (``units export``, ``sweep``, ``survey``,
``pareto``) say up front how much work there is, log a line per finished step
on stderr, and show a tqdm bar with its estimate of the time left
(:mod:`approx_units.progress`) when stderr is a terminal or ``--progress`` is
given.  ``--json`` runs print neither the lines nor, unless asked with
``--progress``, the bar: their stdout is one object and their stderr empty.
"""

from __future__ import annotations

from approx_units import progress

__all__ = ["add_progress_option", "progress_wanted", "stderr_log"]


def add_progress_option(parser) -> None:
    parser.add_argument("--progress", action="store_true",
                        help="show the progress bar (tqdm, on stderr, with the estimated time left) even when "
                             "stderr is not a terminal")


def progress_wanted(args) -> bool | None:
    """``enabled`` for :func:`approx_units.progress.bar`: forced on, off for ``--json``, else a terminal's."""
    if args.progress:
        return True
    return False if args.json else None


def stderr_log(args):
    """The command's log: each line on stderr above the bar, or ``None`` (no lines) with ``--json``."""
    return None if args.json else progress.write
