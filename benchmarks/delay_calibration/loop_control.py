"""Measure pipelined loops whose critical path is their control, and fit ``loop_control_logic``.

    .venv/bin/python -m benchmarks.delay_calibration.loop_control [--clock MHZ] [KERNEL ...]

Each point is a benchmark kernel with a trivial data path (a plain sum, a running maximum, a
``break``), compiled for ``--clock`` (default 150 MHz) and placed and routed whole by
nextpnr-ecp5 at seeds 1, 2 and 3 as the sweep places them (:func:`benchmarks.fmax_sweep.measure`,
through :func:`approx_units.synth.synthesize_kernel_seeds`, cached).  The control path of such a loop is its slowest
register-to-register path, so a kernel's median period bounds its control from above.  The fit
is the slowest ``median - register_setup - max(compare, drained)`` over the points (the terms of
:meth:`approx_units.devices.DelayModel.loop_control`), rounded up to 0.05 ns, so the model claims
no more than any of them reaches.  On 2026-12-06 (branch carry22) it fits 4.75 ns, set by
find_first_break (122.5 MHz; the others 161-233), against the model's 4.9; a faster control
claim (3.4 ns) also unmasks data paths the model times too fast at 150 MHz (docs/compiler.md,
*The loop control*).  ``MEASURED_CONTROL`` in :mod:`benchmarks.delay_calibration.ecp5` still
holds the older points.
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

#: Kernels whose data path is shorter than their control's: the points of the fit.
KERNELS = ("vsum", "argmax", "if_loop", "find_first_break", "find_first_while")
SEEDS = 3


def control_key(kernel, clock: float) -> tuple[int, int, int]:
    """``(counter width, bound width, pipeline length)`` of ``kernel``'s last pipelined loop
    compiled for ``clock``: the arguments of :meth:`~approx_units.devices.DelayModel.loop_control`."""
    from hls.compiler import compile_kernel
    from hls.ir import PipelinedLoop
    compiled = compile_kernel(kernel, target=kernel.target.replace(clock_mhz=clock), retarget=False)
    node = [node for node in compiled.ir.nodes if isinstance(node, PipelinedLoop)][-1]
    counter = node.counter_shape.width if node.kind == "for" else 0
    bound = compiled.ir.variables[node.stop_var].width if node.kind == "for" else 0
    return counter, bound, max(1, compiled.schedule_of(node.body).length)


def measure(names=KERNELS, clock: float = 150.0, progress=print) -> dict:
    """``{name: (key, {seed: MHz})}``: each kernel placed at seeds 1-3 (:func:`control_key`)."""
    from approx_units.synth import ResultCache
    from benchmarks import fmax_sweep
    cache = ResultCache()
    results = {}
    for name, kernel in fmax_sweep.kernels(names).items():
        row = fmax_sweep.measure(kernel, clock, SEEDS, cache, every_seed=True)
        key = control_key(kernel, clock)
        results[name] = key, row["fmax_mhz"]
        progress(f"  {name:18} {str(key):12} " + ", ".join(f"{mhz:.1f}" for mhz in row["fmax_mhz"].values())
                 + " MHz", flush=True)
    return results


def logic(model, key: tuple[int, int, int], ns: float) -> float:
    """``loop_control_logic`` that makes the model's control path of ``key`` exactly ``ns``."""
    return ns - model.register_setup - (model.loop_control(*key) - model.loop_control_logic)


def fit(model, measured: dict) -> float:
    """The slowest :func:`logic` over the medians of ``measured``, rounded up to 0.05 ns."""
    slowest = max(logic(model, key, 1000 / statistics.median(seeds.values())) for key, seeds in measured.values())
    return math.ceil(slowest * 20 - 1e-9) / 20


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", default=list(KERNELS), help=f"kernels (default: {' '.join(KERNELS)})")
    parser.add_argument("--clock", type=float, default=150.0, metavar="MHZ", help="clock target (default 150)")
    options = parser.parse_args(argv)
    if not 0 < options.clock < 500:
        parser.error(f"--clock must be MHz between 0 and 500 (exclusive), not {options.clock:g}")
    import hls
    model = hls.Target(device="ecp5").delay_model
    print(f"ecp5: loop control of kernels compiled for {options.clock:g} MHz (seeds 1-{SEEDS})")
    try:
        measured = measure(options.kernels or KERNELS, options.clock)
    except KeyError as error:
        parser.error(error.args[0])
    print("kernel             (counter, bound, length)  median MHz  ns     model ns  logic ns")
    for name, (key, seeds) in measured.items():
        ns = 1000 / statistics.median(seeds.values())
        print(f"{name:18} {str(key):25} {1000 / ns:10.1f}  {ns:5.2f}  "
              f"{model.loop_control(*key) + model.register_setup:8.2f}  {logic(model, key, ns):8.2f}")
    print(f"loop_control_logic fitted: {fit(model, measured):.2f} ns (the model holds {model.loop_control_logic:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
