"""The explorer's cost model (:mod:`hls.explore.cost`): each copy of an operation priced on a probe that
rebuilds its context in the kernel (the operands' proven values, one operand or two, the result's kept bits,
a pipelined loop or not), plus each kernel's exact remainder.

The fast tests replace synthesis by a stand-in (a deterministic figure of the Verilog text), which checks
the model's bookkeeping: which probes it builds, how it sums them, and that the exact assignment is the
exact kernels' own figure.  The slow test synthesises the two-kernel chain of ``explore_kernels`` and
compares the estimate of every one of its assignments with whole-kernel synthesis.
"""

import dataclasses
import hashlib
import itertools
from collections import Counter
from types import SimpleNamespace

import pytest
from amaranth.hdl import signed, unsigned

import explore_kernels as kernels
import hls
import hls.explore as explore
from approx_units import synth
from hls.analysis.registers import RegisterWidths
from hls.compiler import compile_kernel
from hls.explore import cost
from hls.explore.cost import Context, CostModel, error_distribution, kernel_contexts, probe_source, read_bits

CANDIDATES = "mul=drum(k=3),mitchell"


def _uses(ir):
    """``{id(op): [consumer, ...]}`` over ``ir``'s blocks, as :func:`read_bits` takes it."""
    uses = {}
    for op in (op for block in ir.blocks() for op in block.ops):
        for operand in op.inputs():
            uses.setdefault(id(operand), []).append(op)
    return uses


def _chain_space():
    return explore.Space(kernels.CHAIN, explore.parse_candidates(CANDIDATES, ["mul"]))


def test_each_copy_takes_its_context_from_the_kernels_ir():
    space = _chain_space()
    (scale,) = kernel_contexts(space.kernels[0], space.sites).values()
    (square,) = kernel_contexts(space.kernels[1], space.sites).values()
    # a[i] * w: two 8-bit operands of any value, all 16 product bits stored, in the pipelined loop.
    assert scale == Counter({Context(unsigned(8), unsigned(8), unsigned(8), unsigned(8), False, unsigned(16), True): 1})
    # y * y with y = x[i] >> 8: typed 16 x 16, but y holds 8 bits; one operand; o[i] keeps 16 of 32 bits.
    assert square == Counter({Context(unsigned(16), unsigned(16), unsigned(8), unsigned(8), True, unsigned(16),
                                      True): 1})


def test_a_copys_context_keeps_only_the_result_bits_the_kernel_reads():
    space = explore.Space([kernels.kept_bits], explore.parse_candidates("mul=drum(k=3)", ["mul"]))
    contexts = kernel_contexts(space.kernels[0], space.sites)
    kept = {site.operation.text: [(c.result, c.low) for c in contexts[site.key]] for site in space.sites}
    assert kept == {
        "a[i] * b[i]": [(signed(16), 6)],          # >> 6 into 10 bits: bits 6..15 of the signed(20) product
        "b[i] * w": [(unsigned(16), 0)],           # >> s (a variable): every bit
        "b[i] * b[i]": [(unsigned(14), 0)],        # a sum's bits 12..13: every product bit below 14
        "a[i] * w": [(signed(20), 18)],            # >> 18 into 6 bits: bit 18 and the sign bit
    }


def test_a_probe_drops_the_low_bits_its_context_does_not_read():
    context = Context(signed(12), unsigned(8), signed(12), unsigned(8), False, signed(16), True, 6)
    source = probe_source("mul", context)
    assert "o[i] = (x * y) >> 6" in source and "o: hls.Array[signed(10), 4]" in source
    assert "o[i] = x\n" in probe_source(None, context, "mul")
    once = probe_source("div", Context(unsigned(24), unsigned(7), unsigned(24), unsigned(7), False, unsigned(20),
                                       False, 4))
    assert "-> unsigned(16):" in once and "return (x // y) >> 4" in once
    assert "bits 6..15" in context.text()
    unit = explore.parse_candidates("mul=drum(k=3)", ["mul"])["mul"][0]
    probe = cost.probe_kernel("mul", context, hls.Target(), unit)
    (operation,) = [op for block in probe.ir.blocks() for op in block.ops if op.kind == "approx_mul"]
    assert [op.shape for op in operation.operands] == [signed(12), unsigned(8)]
    uses = _uses(probe.ir)
    assert read_bits(operation, uses, {}) == (6, 16)      # the probe reads what the kernel did


def test_a_product_whose_only_consumer_is_a_sum_takes_the_other_summand_as_its_addend():
    space = explore.Space([kernels.summed], explore.parse_candidates("mul=drum(k=3)", ["mul"]))
    contexts = kernel_contexts(space.kernels[0], space.sites)
    addends = {site.operation.text: [context.addend for context in contexts[site.key]] for site in space.sites}
    assert addends == {
        "a[i] * w": [unsigned(16)],                 # x + b[i] * b[i]: the other product's 16 bits
        "b[i] * b[i]": [unsigned(16)],
        "a[i] * b[i]": [unsigned(4)],               # (a * b) >> 4 - c[i], through the shift: c's 4 bits
        "b[i] * w": [None],                         # read by a comparison
        "c[i] * w": [None],                         # y + y: no other summand
        # Two consumers (w + v or w - v): priced alone.  Probing such a product beside one adder made
        # tracking's estimates worse (benchmarks/explore_cost.py --app tracking), so it is not done.
        "c[i] * b[i]": [None],
        "c[i] * c[i]": [None],                      # w + g or b[i] - g
    }


def test_a_probe_with_an_addend_prices_the_product_beside_its_adder():
    context = Context(unsigned(8), unsigned(8), unsigned(8), unsigned(8), False, unsigned(16), True, 4,
                      unsigned(12))
    source = probe_source("mul", context)
    assert "o[i] = ((x * y) >> 4) + z" in source and "c: hls.Array[unsigned(12), 4]" in source
    assert "o: hls.Array[unsigned(13), 4]" in source          # 12 kept product bits + 12 bits: 13
    base = probe_source(None, context, "mul")
    assert "o[i] = (x) + z" in base and "z: unsigned(12) = c[i]" in base
    assert "+ 12 bits" in context.text()
    once = probe_source("mul", Context(unsigned(8), unsigned(8), unsigned(8), unsigned(8), False, unsigned(16),
                                       False, 0, unsigned(16)))
    assert "c: unsigned(16)" in once and "-> unsigned(17):" in once and "return (x * y) + z" in once
    unit = explore.parse_candidates("mul=drum(k=3)", ["mul"])["mul"][0]
    probe = cost.probe_kernel("mul", context, hls.Target(), unit)
    (operation,) = [op for block in probe.ir.blocks() for op in block.ops if op.kind == "approx_mul"]
    uses = _uses(probe.ir)
    # the probe rebuilds the context it was made from
    assert cost.consuming_addend(operation, uses, RegisterWidths(probe.ir).values) == unsigned(12)


def test_a_helper_inlined_twice_gives_two_copies_at_their_own_shapes():
    space = explore.Space([kernels.mix], explore.parse_candidates("mul=drum(k=3)", ["mul"]))
    contexts = kernel_contexts(space.kernels[0], space.sites)
    (helper,) = [site for site in space.sites if site.operation.text == "x * w"]
    assert sum(contexts[helper.key].values()) == sum(count for _, count in helper.copies) == 2
    assert {context.shapes for context in contexts[helper.key]} == {shapes for shapes, _ in helper.copies}


def test_a_probe_builds_the_operation_at_the_contexts_operand_shapes():
    context = Context(unsigned(16), signed(12), unsigned(8), signed(5), False, signed(20), True)
    source = probe_source("mul", context)
    assert "a: hls.Array[unsigned(8), 4]" in source and "b: hls.Array[signed(5), 4]" in source
    assert "o: hls.Array[signed(20), 4]" in source and "o[i] = x * y" in source
    assert "x * " not in probe_source(None, context, "mul") and "o[i] = x" in probe_source(None, context, "mul")
    square = probe_source("mul", Context(unsigned(16), unsigned(16), unsigned(8), unsigned(8), True, unsigned(16),
                                         False))
    assert "return x * x" in square and "b:" not in square and "for " not in square
    kernel = cost.probe_kernel("mul", context, hls.Target())
    (operation,) = [op for block in kernel.ir.blocks() for op in block.ops if op.kind == "mul"]
    assert [op.shape for op in operation.operands] == [unsigned(16), signed(12)]


def test_minus_and_percent_sites_take_their_contexts_and_probes_with_their_units():
    space = explore.Space([kernels.residues], explore.parse_candidates("sub=loa(l=3);mod=aaxd(k=3)",
                                                                       ["sub", "mod"]))
    contexts = kernel_contexts(kernels.residues, space.sites)
    by_text = {site.operation.text: site for site in space.sites}
    (difference,) = contexts[by_text["a[i] - b[i]"].key]
    assert difference.shapes == (signed(8), unsigned(6)) and difference.result == signed(9)
    (remainder,) = contexts[by_text["a[i] % b[i]"].key]
    assert remainder.shapes == (signed(8), unsigned(6)) and remainder.result.width <= 6
    for kind, context, unit in (("sub", difference, space.candidates["sub"][0]),
                                ("mod", remainder, space.candidates["mod"][0])):
        assert f"o[i] = x {hls.approx.KINDS[kind]} y" in probe_source(kind, context)
        probe = cost.probe_kernel(kind, context, hls.Target(), unit)
        kinds = [op.kind for block in probe.ir.blocks() for op in block.ops]
        assert f"approx_{kind}" in kinds and kind not in kinds
        assert unit.unit in probe.verilog()


def test_the_error_distribution():
    summary = error_distribution([2.0, -12.5, 9.99, 10.0, -3.0])
    assert summary == {"points": 5, "within_10pct": 4, "share_within_10pct": 0.8, "median_pct": 2.0,
                       "median_abs_pct": 9.99, "worst_pct": -12.5}
    assert error_distribution([])["share_within_10pct"] is None


def _figure(verilog: str) -> int:
    """A stand-in for synthesis: a deterministic number of LUT equivalents per Verilog text."""
    return 100 + int(hashlib.sha256(verilog.encode()).hexdigest()[:4], 16) % 900


class _FakeSynthesis:
    """``synthesize_verilog`` and ``synthesize_kernel_seeds`` replaced, counting what they were given."""

    def __init__(self, monkeypatch):
        self.probes: list[str] = []
        self.kernels: list[str] = []
        monkeypatch.setattr(cost, "synthesize_verilog", self.verilog)
        monkeypatch.setattr(cost, "synthesize_kernel_seeds", self.kernel)

    def verilog(self, verilog, top, target, *, timing, cache):
        assert target == "ecp5" and not timing
        self.probes.append(verilog)
        return SimpleNamespace(lut_equivalents=_figure(verilog))

    def kernel(self, verilog, top, *, clock_mhz, seeds, cache):
        self.kernels.append(verilog)
        return [SimpleNamespace(lut_equivalents=_figure(verilog), ffs=7, fmax_mhz=100.0 + seed) for seed in seeds]


@pytest.mark.slow
def test_the_estimate_sums_each_kernels_exact_figure_and_its_sites_probes(monkeypatch):
    fake = _FakeSynthesis(monkeypatch)
    space = _chain_space()
    model = CostModel(space, synth.ResultCache(), seeds=(1, 2, 3))
    exact = {k.name: _figure(compile_kernel(k).verilog()) for k in space.kernels}
    assert {name: figures["lut_equivalents"] for name, figures in model.exact.items()} == exact
    assert model.exact["scale"]["fmax_mhz"] == 102.0               # the median of the seeds
    # The exact assignment is the exact kernels' own figure.
    assert model.estimate((0, 0)) == sum(exact.values())
    target = space.kernels[0].target
    for selection in itertools.product(*(range(size) for size in space.sizes)):
        estimates = model.kernel_estimates(selection)
        assert model.estimate(selection) == sum(estimates.values())
        for site, choice in zip(space.sites, selection):
            (context,) = model.contexts[site.key]
            unit = site.units[choice - 1] if choice else None
            base = _figure(cost.probe_kernel(None, context, target, result_kind="mul").verilog())
            probe = _figure(cost.probe_kernel("mul", context, target, unit).verilog())
            exact_probe = _figure(cost.probe_kernel("mul", context, target).verilog())
            # A kernel's estimate moves with its own sites only, by the probes' difference.
            assert estimates[site.kernel] == exact[site.kernel] - (exact_probe - base) + (probe - base)
    assert len(fake.kernels) == 2


@pytest.mark.slow
def test_probes_are_built_once_per_context_unit_and_target(monkeypatch):
    fake = _FakeSynthesis(monkeypatch)
    # scale at the default clock; scale_twice (two copies of its a[i] * w, on two lines) at 25 MHz.
    slow = hls.Kernel(kernels.scale_twice.fn, target=hls.Target(clock_mhz=25))
    space = explore.Space([kernels.scale, slow], explore.parse_candidates(CANDIDATES, ["mul"]))
    contexts = [model_context for site in space.sites for model_context in kernel_contexts(
        next(k for k in space.kernels if k.name == site.kernel), [site])[site.key]]
    assert len(space.sites) == 3 and len(set(contexts)) == 1          # one context everywhere
    model = CostModel(space, synth.ResultCache())
    assert model.costs[1] == model.costs[2]
    # Per target: the base, the exact operation and each candidate, once; the second site of a context
    # prices from the first's probes, and another clock is another target.
    assert len(fake.probes) == 2 * (1 + 1 + 2)


@pytest.mark.slow
def test_the_chains_estimates_are_within_10_percent_of_whole_kernel_synthesis():
    """Every assignment of the chain (``mitchell`` on both ``*`` among them, which the shapes-only probe put at
    58 LUT-eq against 231) against each kernel synthesised whole; a cheaper unit on a site lowers the estimate."""
    space = _chain_space()
    cache = synth.ResultCache()
    model = CostModel(space, cache)
    for selection in itertools.product(*(range(size) for size in space.sizes)):
        mapping = space.mapping(selection)
        measured = 0
        for kernel in space.kernels:
            compiled = compile_kernel(kernel.with_approx(mapping[kernel.name]))
            measured += synth.synthesize_verilog(compiled.verilog(), compiled.ir.name, "ecp5", timing=False,
                                                 cache=cache).lut_equivalents
        assert abs(model.estimate(selection) - measured) <= 0.1 * measured, (selection, model.estimate(selection),
                                                                              measured)
    # drum(k=3) and mitchell are each cheaper than exact on both sites, in the estimate as synthesised.
    for row in model.costs:
        assert max(row[1:]) < row[0]
    assert model.estimate((2, 2)) < model.estimate((0, 2)) < model.estimate((0, 0))


PAIR_CANDIDATES = "mul=lut_mul(t=8),drum(k=4);add=loa(l=4)"


def _pair_space(kinds=("mul", "add")):
    return explore.Space([kernels.dot_pair], explore.parse_candidates(PAIR_CANDIDATES, list(kinds)))


def test_a_product_knows_the_sum_it_feeds_only_when_that_sum_is_a_site():
    space = _pair_space()
    sums = [site.key for site in space.sites if site.operation.kind == "add"]
    assert len(sums) == 1
    contexts = kernel_contexts(space.kernels[0], space.sites)
    for site in space.sites:
        (context,) = contexts[site.key]
        assert context.consumer == (sums[0] if site.operation.kind == "mul" else None)
        assert context.addend == (unsigned(16) if site.operation.kind == "mul" else None)
    only_products = _pair_space(("mul",))
    for contexts in kernel_contexts(only_products.kernels[0], only_products.sites).values():
        (context,) = contexts
        assert context.consumer is None and context.addend == unsigned(16)


def test_a_products_bonus_beside_its_sum_is_its_saving_there_less_its_saving_alone(monkeypatch):
    _FakeSynthesis(monkeypatch)
    space = _pair_space()
    model = CostModel(space, synth.ResultCache())
    target = space.kernels[0].target
    (sum_index,) = [i for i, site in enumerate(space.sites) if site.operation.kind == "add"]

    def saved(context, unit):
        """What ``unit`` saves against exact on ``context``'s probe."""
        figure = lambda unit: _figure(cost.probe_kernel("mul", context, target, unit).verilog())  # noqa: E731
        return figure(None) - figure(unit)

    expected = []
    for i, site in enumerate(space.sites):
        if site.operation.kind != "mul":
            continue
        (context,) = model.contexts[site.key]
        beside = dataclasses.replace(context, consumer=None)
        alone = dataclasses.replace(beside, addend=None)
        excess = [max(0, saved(beside, unit) - saved(alone, unit)) for unit in (None, *site.units)]
        if any(excess):
            expected.append((i, sum_index, excess))
    assert model.overlaps == expected


def test_under_an_approximate_sum_its_products_bonus_is_taken_back_up_to_the_sums_saving(monkeypatch):
    _FakeSynthesis(monkeypatch)
    space = _pair_space()
    model = CostModel(space, synth.ResultCache())
    mul_sites = [i for i, site in enumerate(space.sites) if site.operation.kind == "mul"]
    (sum_index,) = [i for i, site in enumerate(space.sites) if site.operation.kind == "add"]
    model.costs = [[300.0, 200.0, 250.0] if i in mul_sites else [50.0, 40.0] for i in range(len(space.sites))]
    model.overlaps = [(i, sum_index, [0.0, 6.0, 1.0]) for i in mul_sites]
    exact = model.estimate([0] * len(space.sites))

    def estimate(products, approximate_sum):
        selection = [0] * len(space.sites)
        for i, choice in zip(mul_sites, products):
            selection[i] = choice
        selection[sum_index] = int(approximate_sum)
        return exact - model.estimate(selection)    # the saving

    assert estimate((1, 1), False) == 200                       # an exact sum: nothing taken back
    assert estimate((1, 2), False) == 150
    assert estimate((1, 2), True) == 150 + 10 - 7               # 6 + 1 taken back
    assert estimate((1, 1), True) == 200 + 10 - 10              # 12 claimed twice, capped at the sum's 10
    assert estimate((0, 0), True) == 10


@pytest.mark.slow
def test_a_rounding_product_and_the_approximate_sum_behind_it_are_counted_once():
    """``lut_mul(t=8)`` on both 8 x 8 products zeroes the low columns that ``loa(l=4)`` approximates: whole,
    the adder then saves nothing (178 LUT-eq with the exact sum and with ``loa``)."""
    space = _pair_space()
    cache = synth.ResultCache()
    model = CostModel(space, cache)
    for selection in itertools.product(*(range(size) for size in space.sizes)):
        compiled = compile_kernel(space.kernels[0].with_approx(space.mapping(selection)["dot_pair"]))
        measured = synth.synthesize_verilog(compiled.verilog(), compiled.ir.name, "ecp5", timing=False,
                                            cache=cache).lut_equivalents
        assert abs(model.estimate(selection) - measured) <= 0.1 * measured, (selection, model.estimate(selection),
                                                                              measured)
