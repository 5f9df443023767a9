"""Measure pipelined loops' control and early exits, and fit ``loop_control_logic`` and ``exit_logic``.

    .venv/bin/python -m benchmarks.delay_calibration.loop_control [--clock MHZ] [KERNEL ...]
    .venv/bin/python -m benchmarks.delay_calibration.loop_control --exits [--clock MHZ] [KERNEL ...]

Each point is a benchmark kernel with a trivial data path (a plain sum, a running maximum, a
``while`` loop) or a slow control (mac_s32), compiled for ``--clock`` (default 150 MHz) and placed and routed whole by
nextpnr-ecp5 at seeds 1, 2 and 3 as the sweep places them (:func:`benchmarks.fmax_sweep.measure`,
through :func:`approx_units.synth.synthesize_kernel_seeds`, cached).  The control path of such a
loop is at most its slowest register-to-register path, so a kernel's median period bounds its
control from above (where the path is data, the bound is loose but still one the model must not
undercut).  The fit is the slowest ``median - register_setup - max(compare, drained)`` over the
points (the terms of :meth:`approx_units.devices.DelayModel.loop_control`), rounded up to
0.05 ns, so the model claims no more than any of them reaches.

An early exit's logic after its condition (``exit_logic``: its fire, the squash and the stop into
``running``) is not part of that control: ``--exits`` places the kernels with exits (default
:data:`EXIT_KERNELS`) and prints, for each, whether nextpnr's path at the median's seed runs
through an exit's ``fire`` and the model's ready offset of that exit's condition; the fit
(:func:`fit_exits`) is the slowest ``median - register_setup - offset`` over the paths through an
exit.  Once ``exit_logic`` is in the model, a condition that does not leave it the end of the
cycle is registered first, so those paths no longer exist: the points it was fitted on are kept in
:data:`benchmarks.delay_calibration.ecp5.MEASURED_EXITS`, measured before.

Without kernel names, the fits printed are those of the recorded points
(:data:`~benchmarks.delay_calibration.ecp5.MEASURED_CONTROL`, ``MEASURED_EXITS``) after the
kernels' measurement.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: Kernels whose data path is short (and mac_s32, whose control is slow in a large kernel): the
#: points of the control's fit.
KERNELS = ("vsum", "argmax", "if_loop", "find_first_while", "mac_s32")
#: Kernels with an early exit (``break`` or a ``while`` condition).
EXIT_KERNELS = ("find_first_break", "find_first_while", "insertion_sort", "collatz", "list_walk",
                "row_first_match")
SEEDS = 3


def _pipelined(kernel, clock: float):
    from hls.compiler import compile_kernel
    from hls.ir import PipelinedLoop
    compiled = compile_kernel(kernel, target=kernel.target.replace(clock_mhz=clock), retarget=False)
    return compiled, [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)]


def control_key(kernel, clock: float) -> tuple[int, int, int]:
    """``(counter width, bound width, pipeline length)`` of ``kernel``'s last pipelined loop
    compiled for ``clock``: the arguments of :meth:`~approx_units.devices.DelayModel.loop_control`."""
    compiled, loops = _pipelined(kernel, clock)
    node = loops[-1]
    counter = node.counter_shape.width if node.kind == "for" else 0
    bound = compiled.ir.variables[node.stop_var].width if node.kind == "for" else 0
    return counter, bound, max(1, compiled.schedule_of(node.body).length)


def exit_offsets(kernel, clock: float) -> dict[str, float]:
    """``{exit name: the model's ready offset of its condition, ns}`` of ``kernel`` compiled for
    ``clock``, where the condition chains into the exit (is ready in the exit's cycle)."""
    compiled, loops = _pipelined(kernel, clock)
    offsets = {}
    for node in loops:
        scheduled = compiled.schedule_of(node.body)
        problem, schedule = scheduled.problem.problem, scheduled.schedule
        for op in node.exit_ops:
            cycle, offset = schedule.ready(problem, op.operands[0].name)
            if cycle == schedule.start[op.name]:
                offsets[op.name] = offset
    return offsets


def measure(names=KERNELS, clock: float = 150.0, progress=print) -> dict:
    """``{name: (key, {seed: MHz}, path)}``: each kernel placed at seeds 1-3 (:func:`control_key`),
    with nextpnr's critical path at the median's seed."""
    from approx_units.synth import ResultCache
    from benchmarks import fmax_sweep
    cache = ResultCache()
    results = {}
    for name, kernel in fmax_sweep.kernels(names).items():
        row = fmax_sweep.measure(kernel, clock, SEEDS, cache, every_seed=True)
        key = control_key(kernel, clock)
        results[name] = key, row["fmax_mhz"], row.get("path") or []
        progress(f"  {name:18} {str(key):12} " + ", ".join(f"{mhz:.1f}" for mhz in row["fmax_mhz"].values())
                 + " MHz", flush=True)
    return results


def logic(model, key: tuple[int, int, int], ns: float) -> float:
    """``loop_control_logic`` that makes the model's control path of ``key`` exactly ``ns``."""
    return ns - model.register_setup - (model.loop_control(*key) - model.loop_control_logic)


def _round_up(ns: float) -> float:
    return math.ceil(ns * 20 - 1e-9) / 20


def fit(model, points) -> float:
    """The slowest :func:`logic` over ``points`` (``{name: (key, ns)}``, as
    :data:`~benchmarks.delay_calibration.ecp5.MEASURED_CONTROL`), rounded up to 0.05 ns."""
    return _round_up(max(logic(model, key, ns) for key, ns in points.values()))


def fit_exits(model, points) -> float:
    """The slowest ``ns - register_setup - offset`` over ``points`` (``{name: (offset, ns)}``, as
    :data:`~benchmarks.delay_calibration.ecp5.MEASURED_EXITS`), rounded up to 0.05 ns."""
    return _round_up(max(ns - model.register_setup - offset for offset, ns in points.values()))


def _exit_on_path(path) -> str | None:
    """The exit whose ``fire`` nextpnr's ``path`` runs through, if any."""
    for step in path:
        for name in step[2:]:
            text = str(name)
            at = text.find("_fire")
            if at > 0:
                head = text[:at].split(".")[-1]
                if head.startswith("exit"):
                    return head
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", help=f"kernels (default: {' '.join(KERNELS)}; with --exits "
                                                   f"{' '.join(EXIT_KERNELS)})")
    parser.add_argument("--clock", type=float, default=150.0, metavar="MHZ", help="clock target (default 150)")
    parser.add_argument("--exits", action="store_true", help="place the kernels with exits and fit exit_logic")
    options = parser.parse_args(argv)
    if not 0 < options.clock < 500:
        parser.error(f"--clock must be MHz between 0 and 500 (exclusive), not {options.clock:g}")
    import hls
    from benchmarks import fmax_sweep
    from benchmarks.delay_calibration.ecp5 import MEASURED_CONTROL, MEASURED_EXITS
    model = hls.Target(device="ecp5").delay_model
    names = options.kernels or (EXIT_KERNELS if options.exits else KERNELS)
    print(f"ecp5: {'exits' if options.exits else 'loop control'} of kernels compiled for {options.clock:g} MHz "
          f"(seeds 1-{SEEDS})")
    try:
        measured = measure(names, options.clock)
    except KeyError as error:
        parser.error(error.args[0])
    if options.exits:
        print("kernel             median MHz  ns     path through      condition ready  exit logic ns")
        points = {}
        kernels = fmax_sweep.kernels(names)
        for name, (key, seeds, path) in measured.items():
            ns = 1000 / statistics.median(seeds.values())
            through = _exit_on_path(path)
            offset = exit_offsets(kernels[name], options.clock).get(through) if through else None
            if offset is not None:
                points[name] = offset, ns
            print(f"{name:18} {1000 / ns:10.1f}  {ns:5.2f}  {through or 'no exit':16} "
                  + (f"{offset:15.2f}  {ns - model.register_setup - offset:13.2f}" if offset is not None
                     else f"{'-':>15}  {'-':>13}"))
        if points:
            print(f"exit_logic fitted on these: {fit_exits(model, points):.2f} ns")
        print(f"exit_logic fitted on MEASURED_EXITS: {fit_exits(model, MEASURED_EXITS):.2f} ns "
              f"(the model holds {model.exit_logic:.2f})")
        return 0
    print("kernel             (counter, bound, length)  median MHz  ns     model ns  logic ns")
    points = {}
    for name, (key, seeds, _) in measured.items():
        ns = 1000 / statistics.median(seeds.values())
        points[name] = key, ns
        print(f"{name:18} {str(key):25} {1000 / ns:10.1f}  {ns:5.2f}  "
              f"{model.loop_control(*key) + model.register_setup:8.2f}  {logic(model, key, ns):8.2f}")
    print(f"loop_control_logic fitted on these: {fit(model, points):.2f} ns")
    print(f"loop_control_logic fitted on MEASURED_CONTROL: {fit(model, MEASURED_CONTROL):.2f} ns "
          f"(the model holds {model.loop_control_logic:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
