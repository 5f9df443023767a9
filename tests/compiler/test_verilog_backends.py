"""The emitted Verilog under cocotb + Icarus gives the same outputs and cycle counts as Amaranth's simulator."""

import pytest

from benchmarks.kernels import load
from sim.kernel import run


def _icarus_available():
    try:
        from sim.tools import find_simulator
        find_simulator("icarus")
    except Exception:
        return False
    return True


@pytest.mark.cocotb
@pytest.mark.skipif(not _icarus_available(), reason="Icarus Verilog is not installed")
@pytest.mark.parametrize("name", ["find_first_break"])   # the rest: the slow test below
def test_icarus_agrees_with_amaranth(name):
    kernel, examples = load(name)
    amaranth = run(kernel, examples[0])
    icarus = run(kernel, examples[0], backend="icarus")
    assert icarus.backend == "icarus" and icarus.match, icarus.differences
    assert icarus.outputs == amaranth.outputs
    assert icarus.cycles == amaranth.cycles


@pytest.mark.slow
@pytest.mark.skipif(not _icarus_available(), reason="Icarus Verilog is not installed")
def test_icarus_agrees_on_every_benchmark_kernel():
    from benchmarks.kernels import KERNEL_NAMES
    for name in KERNEL_NAMES:
        kernel, examples = load(name)
        amaranth = run(kernel, examples[0], max_cycles=100_000)
        icarus = run(kernel, examples[0], backend="icarus", max_cycles=100_000)
        assert icarus.match and (icarus.outputs, icarus.cycles) == (amaranth.outputs, amaranth.cycles), name
