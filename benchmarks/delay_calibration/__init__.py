"""The delay measurements each device's :class:`approx_units.devices.DelayModel` was calibrated on.

One module per device (:mod:`.ecp5`, :mod:`.ice40`) holds its measurements, each with the
command that repeats it; :mod:`.operators` measures the compiler's operators one at a time
between registers and prints each beside the model (``python -m
benchmarks.delay_calibration.operators --device ice40``); :mod:`.chains` chains of operators (the
routing from one carry chain into the next), :mod:`.memories` a local array's read by depth,
:mod:`.logic_cones` cones of bitwise logic, :mod:`.loop_control` the loop control of whole
kernels and :mod:`.kernels` whole benchmark kernels (the ratio of placed paths to the model's
budgets), each with its fit.  ``benchmarks/delay_model_check.py``
checks the models on kernels that none of these measurements used.
"""

from __future__ import annotations

from typing import Callable


def place_points(device: str, points, verilog_of: Callable[..., str], top: str, describe: Callable[..., str],
                 progress=print) -> dict:
    """``{point: register-to-register ns}``: each point's module ``top`` (``verilog_of(*point)``)
    synthesised, placed and routed for ``device`` between the registered ports of
    :func:`approx_units.synth.timing_wrapper` (cached by netlist hash), one ``progress`` line
    each: ``describe(*point)`` and the path."""
    from approx_units.synth import synthesize_verilog
    results = {}
    for point in points:
        results[point] = synthesize_verilog(verilog_of(*point), top, device, timing=True).critical_path_ns
        progress(f"  {describe(*point)} {results[point]:6.2f} ns", flush=True)
    return results
