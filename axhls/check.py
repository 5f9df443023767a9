"""``axhls check FILE.py:KERNEL --args ARGS.json [--json] [--max-iterations N]``: the overflow checker
(``FILE.py:CHAIN`` for an ``@hls.dataflow`` chain: its stages in turn).

A checked run of the golden model: every assignment, array store and return
whose value does not fit its declared shape is reported once per source site,
with how often it happened and the first offending value. Such a value is
wrapped by the hardware (and by the golden model), which is the usual reason
the hardware "differs from Python".

The run stops when one loop has run ``--max-iterations`` iterations (default
one million), so that a ``while`` that never ends cannot hang it.

Exit status: 0 when every value fits, 1 when something overflowed or the run
faulted (an array index out of range, a loop past ``--max-iterations``), 2 for
a user mistake (missing file, no such kernel, bad JSON, arguments not matching
the parameters, a kernel outside the language).
"""

from __future__ import annotations

import json

from .arguments import integer
from hls.dataflow import Dataflow

from .loading import load_args, load_kernel, user_errors

__all__ = ["register", "run_check", "MAX_ITERATIONS"]

#: Default bound of ``--max-iterations``, the default ``--max-cycles`` of ``axhls sim`` (whose
#: hardware could not run more iterations of one loop in that many cycles): about a second of Python.
MAX_ITERATIONS = 1_000_000


def register(subparsers) -> None:
    """Add the ``check`` sub-command to the ``axhls`` parser."""
    parser = subparsers.add_parser(
        "check", help="run a kernel in Python and report values that overflow their widths",
        description="Run the kernel's golden model on ARGS.json and report every assignment whose "
                    "value does not fit its declared width (file:line, variable, value, width). "
                    "Exit status 0: nothing overflowed; 1: something overflowed, an index was "
                    "out of range or a loop reached --max-iterations; 2: bad input.")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL", help="the kernel to run, or an @hls.dataflow chain "
                                                               "(every stage's golden model in turn)")
    parser.add_argument("--args", required=True, metavar="ARGS.json",
                        help="JSON object mapping each parameter to an integer or a list of integers")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--max-iterations", type=integer(1), default=MAX_ITERATIONS, metavar="N",
                        help=f"stop the run (exit status 1) when one loop has run N iterations, so that "
                             f"a loop that never ends cannot hang the check (default {MAX_ITERATIONS})")
    parser.set_defaults(handler=run_check)


def run_check(args) -> int:
    """Handler of ``axhls check``; returns the exit status (0 or 1).

    Raises
    ------
    axhls.command.CommandError
        For user mistakes (status 2) and out-of-range indices (status 1).
    """
    kernel = load_kernel(args.kernel, chains=True)
    bound = load_args(args.args, kernel)
    with user_errors(loop_limit_option="--max-iterations"):
        if isinstance(kernel, Dataflow):
            streams, overflows = kernel.run_checked(bound, max_loop_iterations=args.max_iterations)
            outputs = {"return": None, "arrays": {}, "streams": streams}
        else:
            result, arrays, overflows = kernel.golden_model().run_checked(
                bound, max_loop_iterations=args.max_iterations)
            outputs = {"return": list(result) if isinstance(result, tuple) else result, "arrays": arrays}
    if args.json:
        print(json.dumps({
            "kernel": kernel.name,
            "ok": not overflows,
            "overflows": [overflow.to_json() for overflow in overflows],
            "outputs": outputs,
        }))
    else:
        for overflow in overflows:
            print(overflow.to_text())
        if overflows:
            sites = "site" if len(overflows) == 1 else "sites"
            print(f"{kernel.name}: {len(overflows)} {sites} wrapped a value; the hardware computes "
                  f"the wrapped values too, so widen the declared shapes if Python's values were meant")
        else:
            print(f"{kernel.name}: no overflow, every assigned value fits its declared width")
    return 1 if overflows else 0
