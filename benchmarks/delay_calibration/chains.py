"""Measure chains of operators between registers, and fit ``carry_entry`` (ns): the routing into a
carry chain from logic chained before it, beyond the ``routing_hop`` in every operator's delay, and
``select_entry`` (ns): what a ``min``/``max`` chained so pays beyond it.

    .venv/bin/python -m benchmarks.delay_calibration.chains [--device ecp5]

Each point is a chain of IR operators as the back end lowers them (:func:`hls.ir.build.amaranth_value`),
each step's result wrapped to the chain's width (a kernel's assignment) and also registered (a
second user, as a kernel's value used later has one, so that synthesis does not merge chained sums
into one multi-operand adder: alone, ``a + b + c + d`` places at 1.05 ns per extra sum), with a
fresh registered operand per step, between the registered inputs and outputs of
:func:`approx_units.synth.timing_wrapper` (synthesised, placed and routed as
:mod:`.operators`' points are, ``--seed 1``, cached by netlist hash).  The model's path is
``register_setup`` plus each operator's delay (:meth:`hls.Target.operator_delay`) plus, for each
operator that enters a carry chain (:attr:`hls.ir.ops.Operator.carry_input`) chained on another's
result, its :meth:`hls.ir.ops.Operator.entry_routing`: ``carry_entry``, and ``select_entry`` besides
into a ``min``/``max`` (:attr:`hls.ir.ops.Operator.select_input`).

The fit: for each chain of k carry entries after its first operator, what the placed path adds to the
model without entry routing, against the same chain's first operator alone, divided by k (so the
register overhead and the first operator's own error cancel); ``carry_entry`` is the median of
these over the chains without a ``min``/``max`` entry, rounded to 0.05 ns: 0.40 ns over 15 chains,
as nextpnr's median routing into a carry chain (0.97 ns) exceeds its median routing into a LUT or
flip-flop (0.59) in the placements of ``benchmarks/delay_model_check.py`` (README, "Delay models").
The upper quartile (0.65 ns) would cost II 2 for II 1 in csr_rows and csr_spmv at 100 MHz, which
place at 142.5 MHz with II 1 (the model overestimates the LUT logic beside their carry chains).
``select_entry`` is the median, over the chains with ``min``/``max`` entries, of what the placed
chain adds beyond the model with ``carry_entry`` per such entry, rounded to 0.05 ns: 1.15 ns over
18 chains (-2.97-2.71; with two variable operands a ``min`` at every width and a ``max`` at 16 and
24 bits 1.5-2.7, an 8- or 12-bit ``max`` 0.2-0.6; against a constant -3.0-0.1).  None of these
chains is a kernel of ``benchmarks/delay_model_check.py``.
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

#: Each point: the chain's width and its steps, each an IR kind applied to the running value
#: (and, for a binary kind, a fresh operand of the chain's width, or the constant ``N`` where the
#: step is written ``kind:N``, as ``min(x, 127)`` compiles; ``select`` chooses between the
#: running value and a fresh operand by a fresh bit).
POINTS = (
    (16, ("add",)),
    (16, ("add", "add")),
    (16, ("add", "add", "add")),
    (16, ("add", "add", "add", "add")),
    (8, ("add",)),
    (8, ("add", "add", "add")),
    (16, ("sub", "abs")),
    (16, ("sub", "add", "abs")),
    (16, ("add", "lt")),
    (16, ("add", "max")),
    (16, ("max", "add")),
    (16, ("select",)),
    (16, ("select", "add")),
    (16, ("add", "select")),
    (16, ("select", "select", "select")),
    (16, ("abs", "add", "add")),
    (16, ("sub",)),
    (16, ("sub", "lt")),
    (16, ("max",)),
    (16, ("abs",)),
    (8, ("add", "add")),
    (8, ("sub", "abs")),
    (8, ("sub",)),
    (16, ("add", "min")),
    (8, ("add", "max")),
    (16, ("sub", "min")),
    (16, ("sub", "max")),
    (8, ("add", "min")),
    (8, ("sub", "min")),
    (8, ("sub", "max")),
    (8, ("max", "add")),
    (8, ("max",)),
    (16, ("min",)),
    (16, ("add", "abs")),
    (12, ("add",)),
    (12, ("sub",)),
    (12, ("add", "max")),
    (12, ("sub", "min")),
    (24, ("add",)),
    (24, ("sub",)),
    (24, ("add", "max")),
    (24, ("sub", "min")),
    (16, ("min", "max")),
    (16, ("max", "abs")),
    (16, ("sub", "add", "max")),
    (17, ("sub",)),
    (17, ("min:127",)),
    (17, ("sub", "min:127")),
    (22, ("abs",)),
    (22, ("min:65535",)),
    (22, ("abs", "min:65535")),
    (16, ("max:0",)),
    (16, ("sub", "max:0")),
    (16, ("min:1000",)),
    (16, ("add", "min:1000")),
)

BINARY = {"add", "sub", "lt", "le", "gt", "ge", "max", "min", "and", "or", "xor", "eq", "ne"}


def _parsed(step: str) -> tuple[str, int | None]:
    """A step's IR kind and its constant operand (``"min:127"``: ``("min", 127)``), or ``None``."""
    kind, _, constant = step.partition(":")
    return kind, int(constant) if constant else None


def chain_verilog(width: int, steps: tuple[str, ...]) -> str:
    """Verilog of module ``chain``: ``steps`` applied in turn to input ``a`` (signed, ``width``
    bits), step ``i`` taking input ``b<i>`` (and ``c<i>`` for a select) or its constant; output ``o``."""
    from amaranth.back import verilog
    from amaranth.hdl import Const, Module, Mux, signed
    from amaranth.lib import wiring
    from amaranth.lib.wiring import In, Out

    from hls.ir.build import amaranth_value

    ports = {"a": In(signed(width)), "o": Out(signed(width))}
    for index, step in enumerate(steps):
        kind, constant = _parsed(step)
        if (kind in BINARY and constant is None) or kind == "select":
            ports[f"b{index}"] = In(signed(width))
        if kind == "select":
            ports[f"c{index}"] = In(1)
        if index < len(steps) - 1:
            ports[f"o{index}"] = Out(signed(width))

    class Chain(wiring.Component):
        def __init__(self):
            super().__init__(ports)

        def elaborate(self, platform):
            m = Module()
            value = self.a
            for index, step in enumerate(steps):
                kind, constant = _parsed(step)
                if kind == "select":
                    result = Mux(getattr(self, f"c{index}"), value, getattr(self, f"b{index}"))
                elif constant is not None:
                    result = amaranth_value(kind, [value, Const(constant)])
                elif kind in BINARY:
                    result = amaranth_value(kind, [value, getattr(self, f"b{index}")])
                else:
                    result = amaranth_value(kind, [value])
                # A kernel's assignment wraps each result to its variable's width; a comparison's
                # bit stays one bit.
                value = result[:width].as_signed() if result.shape().width > 1 else result
                if index < len(steps) - 1:
                    # Registered as well, as a kernel's value used later is: with a second user,
                    # synthesis keeps the step on a carry chain of its own instead of merging a
                    # chain of sums into one multi-operand adder.
                    m.d.comb += getattr(self, f"o{index}").eq(value)
            m.d.comb += self.o.eq(value)
            return m

    return verilog.convert(Chain(), name="chain", emit_src=False)


def describe(width: int, steps: tuple[str, ...]) -> str:
    return f"{width:2}-bit {' -> '.join(steps):28}"


def measure(device: str = "ecp5", points=POINTS, progress=print) -> dict:
    """``{point: register-to-register ns}`` with nextpnr for ``device``."""
    from benchmarks.delay_calibration import place_points
    return place_points(device, points, chain_verilog, "chain", describe, progress)


def _step_widths(width: int, step: str) -> tuple[int, tuple[int, ...]]:
    from amaranth.hdl import Const

    from hls.ir.ops import operator_of
    kind, constant = _parsed(step)
    arity = operator_of(kind).arity
    result = 1 if kind in ("lt", "le", "gt", "ge", "eq", "ne") else width
    if constant is not None:
        return result, (width, Const(constant).shape().width)
    return result, (width,) * (2 if kind == "select" else arity)


def model_terms(target, width: int, steps: tuple[str, ...]) -> tuple[float, int, int]:
    """The model's path of a chain without its entry routing (``register_setup`` and each
    operator's delay), how many of its operators enter a carry chain from the one before
    (:meth:`hls.ir.ops.Operator.entry_routing`: each pays ``carry_entry``), and how many of those
    are a :attr:`hls.ir.ops.Operator.select_input` kind (``min``/``max``: each pays
    ``select_entry`` as well)."""
    from hls.ir.ops import operator_of
    model = target.delay_model
    total = model.register_setup
    entries = selects = 0
    for index, step in enumerate(steps):
        result, operands = _step_widths(width, step)
        total += target.operator_delay(_parsed(step)[0], result, operands)
        entered = operator_of(_parsed(step)[0])
        producer = operator_of(_parsed(steps[index - 1])[0]) if index else None
        # Each step's result has two users: the next step and its output register, so no two
        # sums merge.
        if producer is not None and entered.carry_input and producer.carry_input:
            entries += 1
            selects += entered.select_input
    return total, entries, selects


def modelled(target, width: int, steps: tuple[str, ...]) -> float:
    """The model's register-to-register path of a chain: :func:`model_terms` with each entry's
    :meth:`hls.ir.ops.Operator.entry_routing`."""
    from hls.ir.ops import operator_of
    base, _, _ = model_terms(target, width, steps)
    return base + sum(operator_of(_parsed(step)[0]).entry_routing(target.delay_model,
                                                                  operator_of(_parsed(before)[0]), 2)
                      for before, step in zip(steps, steps[1:]))


def excesses(target, measured: dict, carry_entry: float | None = None) -> dict:
    """``{point: ns}``: for each chain with carry entries whose first operator was placed alone,
    what the placed chain adds to its first operator, less what the model without entry routing
    adds, per entry; for a chain with ``min``/``max`` entries, less ``carry_entry`` (the model's
    unless given) for every entry as well, per ``min``/``max`` entry: what each pays beyond
    ``carry_entry``."""
    if carry_entry is None:
        carry_entry = target.delay_model.carry_entry
    result = {}
    for (width, steps), ns in measured.items():
        base, entries, selects = model_terms(target, width, steps)
        alone = (width, steps[:1])
        if not entries or alone not in measured:
            continue
        first_base, _, _ = model_terms(target, width, steps[:1])
        excess = (ns - measured[alone]) - (base - first_base)
        result[width, steps] = (excess - entries * carry_entry) / selects if selects else excess / entries
    return result


def _rounded(value: float) -> float:
    return round(value * 20) / 20


def fit(target, measured: dict) -> float:
    """``carry_entry``: the median of :func:`excesses` over the chains without a ``min``/``max``
    entry, rounded to 0.05 ns."""
    return _rounded(statistics.median(value for point, value in excesses(target, measured).items()
                                      if not model_terms(target, *point)[2]))


def fit_select(target, measured: dict) -> float:
    """``select_entry``: the median of :func:`excesses` over the chains with a ``min``/``max``
    entry, beyond the fitted ``carry_entry`` (:func:`fit`), rounded to 0.05 ns."""
    excess = excesses(target, measured, fit(target, measured))
    return _rounded(statistics.median(value for point, value in excess.items() if model_terms(target, *point)[2]))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("ecp5",), default="ecp5")
    options = parser.parse_args(argv)
    import hls
    target = hls.Target(device=options.device)
    model = target.delay_model
    print(f"{options.device}: chains of operators between registers (ns register to register, seed 1)")
    measured = measure(options.device)
    excess = excesses(target, measured, fit(target, measured))
    print("chain                                   placed  model  (no entry)  entries  min/max  excess per entry")
    for (width, steps), ns in measured.items():
        base, entries, selects = model_terms(target, width, steps)
        extra = f"{excess[width, steps]:16.2f}" if (width, steps) in excess else ""
        print(f"{describe(width, steps)}  {ns:6.2f}  {modelled(target, width, steps):5.2f}  "
              f"{base:10.2f}  {entries:7}  {selects:7}  {extra}")
    for label, selecting in (("per entry", False), ("per min/max entry beyond carry_entry", True)):
        values = sorted(value for point, value in excess.items()
                        if bool(model_terms(target, *point)[2]) == selecting)
        print(f"excess {label} over {len(values)} chains: median {statistics.median(values):.2f}, "
              f"min {values[0]:.2f}, max {values[-1]:.2f} ns")
    print(f"carry_entry fitted: {fit(target, measured):.2f} ns (the model holds {model.carry_entry:.2f})")
    print(f"select_entry fitted: {fit_select(target, measured):.2f} ns (the model holds {model.select_entry:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
