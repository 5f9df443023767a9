"""The axhls demo: a Python loop becomes pipelined hardware, and an approximate
multiplier is measured against its exact counterpart.

Run it with ``bash dev.sh demo`` (or ``python examples/demo.py`` inside the
virtual environment).  It writes Verilog to ``out/`` and prints:

1. the schedule report of ``gsumif`` (issue 4's example kernel): the II the
   loop reaches and the source lines that bound it;
2. the kernel's hardware simulated in Amaranth's simulator against its Python
   run, with the cycle count;
3. the refined Mitchell multiplier: its error over all 8-bit operand pairs,
   and its hardware checked against its numpy model in simulation.
"""

from __future__ import annotations

import os
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]

import artefacts  # noqa: E402  (standard library only)
from axhls.environment import missing_dependency_line  # noqa: E402  (standard library only)

try:
    import numpy as np

    import approx_units
    import sim
    from approx_units.evaluate import LibraryUnit, evaluate
    from gsumif import gsumif
except ModuleNotFoundError as error:
    # Run with a Python outside the virtual environment: one line, not a traceback.
    hint = missing_dependency_line(error, "examples/demo.py")
    if hint is None:
        raise
    print(hint, file=sys.stderr)
    sys.exit(2)
except KeyboardInterrupt:
    # Loading the libraries takes a second or more: Ctrl-C may come that early.
    print("demo: interrupted", file=sys.stderr)
    sys.exit(130)


def heading(text: str) -> None:
    print()
    print(text)
    print("-" * len(text))


def kernel_demo(out_dir: pathlib.Path) -> bool:
    heading("1. gsumif: a Python loop with an if/else, pipelined")
    print(gsumif.report().to_text())
    verilog = gsumif.to_verilog(out_dir / "gsumif.v")
    print(f"Verilog written to {verilog.relative_to(ROOT)}")

    heading("2. The hardware in Amaranth's simulator against the Python run")
    rng = random.Random(1)
    data = [rng.randrange(-300, 300) for _ in range(64)]
    all_match = True
    for n in (0, 5, 64):
        run = sim.run(gsumif, {"a": data, "n": n})
        all_match &= run.match
        print(f"n={n:2}: hardware {run.outputs['return']:>8}, Python {run.expected['return']:>8}, "
              f"match={run.match}, {run.cycles} cycles")
    return all_match


def unit_demo() -> bool:
    heading("3. A refined Mitchell multiplier (RAPID style), 8 x 8 bits")
    for name in ("exact_mul", "mitchell", "mitchell_refined"):
        evaluation = evaluate(LibraryUnit(name, 8), progress=False)
        metrics = evaluation.metrics
        print(f"{name:17} exhaustive over {evaluation.samples} pairs: "
              f"MRED {100 * metrics['mred']:.2f} %, ER {100 * metrics['er']:.1f} %, WCE {metrics['wce']:.0f}")

    unit = approx_units.get("mitchell_refined", width=8, stages=2)
    rng = np.random.default_rng(7)
    a = rng.integers(0, 256, 500)
    b = rng.integers(0, 256, 500)
    hardware = sim.run_unit(unit, a, b)
    agree = bool(np.array_equal(hardware, unit.model(a, b)))
    print(f"{unit.description}, {unit.latency}-stage pipeline: 500 random vectors in Amaranth's "
          f"simulator {'equal' if agree else 'DIFFER FROM'} the numpy model")
    return agree


def axhls_program() -> str:
    """How to run ``axhls`` from the current folder: the program installed beside this Python.

    ``bash dev.sh demo`` does not put ``.venv/bin`` on ``PATH``, so a bare ``axhls`` would not be found.
    """
    program = pathlib.Path(sys.executable).parent / "axhls"
    if not program.exists():
        return f"{sys.executable} -m axhls"
    relative = os.path.relpath(program)
    return relative if not relative.startswith("..") else str(program)


def main() -> int:
    out_dir = ROOT / "out"
    out_dir.mkdir(exist_ok=True)
    ok = kernel_demo(out_dir)
    ok &= unit_demo()
    print()
    program = axhls_program()
    print(f"Next: {program} --help, docs/language.md, docs/units.md")
    activate = pathlib.Path(sys.executable).parent / "activate"
    if program.endswith("/axhls") and activate.exists():
        print(f"      (`source {os.path.relpath(activate)}` puts it on PATH as plain `axhls`)")
    return 0 if ok else 1


def run() -> int:
    """:func:`main` as ``bash dev.sh demo`` runs it: Ctrl-C or SIGTERM ends it in one line, 130 or 143."""
    with artefacts.terminate_as_interrupt():
        try:
            return main()
        except KeyboardInterrupt as interrupt:
            message, status = artefacts.interrupt_outcome(interrupt)
            print(f"demo: {message}", file=sys.stderr)
            return status


if __name__ == "__main__":
    sys.exit(run())
