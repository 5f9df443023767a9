"""Measure whole benchmark kernels and fit the delay model's ``expected_ratio``
(:meth:`approx_units.devices.DelayModel.expected_path`).

    .venv/bin/python -m benchmarks.delay_calibration.kernels [--device ecp5|ice40] [--clocks 100,150]
                                                            [--cached-only] [KERNEL ...]

Each point is a kernel of ``benchmarks/run.py`` (the benchmark kernels and the multiply and divide
kernels of :mod:`benchmarks.fmax_kernels`; none of them is a kernel of
``benchmarks/delay_model_check.py``) compiled for each clock on the device as the clock sweep
compiles it, synthesised and placed and routed at seed 1 in the one flow every kernel's Fmax goes
through (:func:`approx_units.synth.synthesize_kernel_seeds`, cached per Verilog).  For each it
prints the model's critical path (:func:`hls.report.critical_path`: its budget, the sum of the
model's constants), nextpnr's register-to-register path (``1000 / Fmax``) and their ratio.

The model's constants are each fitted as the slowest of their own points, so the budget of a
path is above what placement gives it.  The fit is the median of ``placed / budget``, rounded to
0.01; it prints how many points the ratio predicts within 15 %.  (A ratio growing with the log
of the kernel's size, the widths of its operations added up, fitted these points no better once
checked on ``delay_model_check.py``'s kernels, so the model keeps one number.)
The recorded points are :data:`benchmarks.delay_calibration.ecp5.MEASURED_KERNELS` (and the
iCE40 table); without ``--cached-only`` a point missing from the cache is placed (about 40 s each
on ECP5).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def kernel_names() -> list[str]:
    """The calibration kernels: ``benchmarks/run.py``'s kernels and its multiply and divide kernels."""
    from benchmarks.fmax_kernels import FMAX_KERNELS
    from benchmarks.kernels import KERNEL_NAMES
    return [*KERNEL_NAMES, *FMAX_KERNELS]


def measure(names, device: str, clocks, cached_only: bool = False, progress=print) -> dict:
    """``{"name@MHz": (budget ns, placed ns)}`` of each kernel compiled for each clock."""
    from approx_units.synth import ResultCache, SynthesisError, synthesize_kernel_seeds
    from benchmarks import fmax_sweep
    from hls.compiler import compile_kernel
    from hls.report import critical_path
    cache = ResultCache()
    points = {}
    for name, kernel in fmax_sweep.kernels(names).items():
        for clock in clocks:
            compiled = compile_kernel(kernel, target=kernel.target.replace(clock_mhz=clock, device=device),
                                      retarget=False)
            try:
                reports = synthesize_kernel_seeds(compiled.verilog(), compiled.ir.name, clock_mhz=clock, seeds=(1,),
                                                  cache=cache, target=device, cached_only=cached_only)
            except SynthesisError as error:
                # Too large for the device, or a tool failed: said, and left out.
                progress(f"  {name + '@' + format(clock, 'g'):28} not placed: {str(error).splitlines()[0]}", flush=True)
                continue
            if reports is None:
                continue
            path = critical_path(compiled)
            placed = 1000.0 / reports[0].fmax_mhz
            points[f"{name}@{clock:g}"] = (round(path.budget_ns, 2), round(placed, 2))
            progress(f"  {name + '@' + format(clock, 'g'):28} budget {path.budget_ns:6.2f} ns  "
                     f"placed {placed:6.2f} ns  ratio {placed / path.budget_ns:5.2f}", flush=True)
    return points


def fit(points) -> float:
    """``expected_ratio``: the median of ``placed / budget`` over ``points`` (as :func:`measure`
    gives), rounded to 0.01."""
    return round(statistics.median(placed / budget for budget, placed in points.values()), 2)


def errors(points, ratio: float) -> list[float]:
    """Each point's ``(expected - placed) / placed`` under ``ratio``."""
    return [(ratio * budget - placed) / placed for budget, placed in points.values()]


def recorded(device: str) -> dict:
    """The recorded points of ``device``."""
    from benchmarks.delay_calibration import ecp5, ice40
    return {"ecp5": ecp5, "ice40": ice40}[device].MEASURED_KERNELS


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", help="kernels (default: every benchmark and multiply/divide kernel)")
    parser.add_argument("--device", choices=("ecp5", "ice40"), default="ecp5", help="device (default ecp5)")
    parser.add_argument("--clocks", default="100,150", help="MHz, comma-separated (default 100,150)")
    parser.add_argument("--cached-only", action="store_true", help="place nothing: only what the cache holds")
    options = parser.parse_args(argv)
    try:
        clocks = tuple(float(text) for text in options.clocks.split(","))
    except ValueError:
        parser.error(f"--clocks must be MHz separated by commas, such as 100,150, not {options.clocks!r}")
    if not all(0 < clock < 500 for clock in clocks):
        parser.error(f"--clocks must each be between 0 and 500 MHz (exclusive), not {options.clocks!r}")
    import hls
    model = hls.Target(device=options.device).delay_model
    print(f"{options.device}: benchmark kernels at {', '.join(f'{c:g}' for c in clocks)} MHz, seed 1")
    try:
        points = measure(options.kernels or kernel_names(), options.device, clocks, options.cached_only)
    except KeyError as error:
        parser.error(error.args[0])
    for label, chosen in (("these points", points), ("the recorded points", recorded(options.device))):
        if not chosen:
            print(f"fit on {label}: no points")
            continue
        ratio = fit(chosen)
        within = sum(abs(error) <= 0.15 for error in errors(chosen, ratio))
        print(f"fit on {label} ({len(chosen)}): expected_ratio {ratio:g}; within 15 %: {within} of {len(chosen)}")
    print(f"the model holds: expected_ratio {model.expected_ratio:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
