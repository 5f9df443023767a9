"""The delay measurements each device's :class:`approx_units.devices.DelayModel` was calibrated on.

One module per device (:mod:`.ecp5`, :mod:`.ice40`) holds its measurements, each with the
command that repeats it; :mod:`.operators` measures the compiler's operators one at a time
between registers and prints each beside the model (``python -m
benchmarks.delay_calibration.operators --device ice40``).  ``benchmarks/delay_model_check.py``
checks the models on kernels that none of these measurements used.
"""
