"""Benchmark kernels on their generated Verilog: Icarus (and Verilator) against Amaranth and Python.

The default run covers a few kernels that between them use every port kind
(scalar results, array reads and writes, nested loops, early exit); the
``slow`` tests cover every kernel and every example.
"""

import sys
from pathlib import Path

import pytest

from sim_helpers import require_simulator

sys.path.insert(0, str(Path(__file__).parents[2]))  # benchmarks/ is not an installed package

from benchmarks.kernels import KERNEL_NAMES, load  # noqa: E402
from sim.errors import CocotbTimeout, SimulationTimeout  # noqa: E402
from sim.kernel import run  # noqa: E402

pytestmark = pytest.mark.cocotb

#: Scalar loop with a branch, nested loops (flattened, one triangular, one with an inner break; one
#: whose inner runs overlap), array writes, early exit.
QUICK = ("gsumif", "conv3x3", "histogram", "find_first_break", "trmv", "row_scan", "row_first_match")


def _agree(name: str, args: dict, simulator: str):
    kernel, _ = load(name)
    verilog_run = run(kernel, args, backend=simulator)
    amaranth_run = run(kernel, args)
    assert verilog_run.backend == simulator
    assert verilog_run.match, verilog_run.differences
    assert verilog_run.outputs == amaranth_run.outputs
    assert verilog_run.cycles == amaranth_run.cycles


@pytest.mark.parametrize("name", QUICK)
def test_icarus_agrees_with_amaranth(name):
    require_simulator("icarus")
    _, examples = load(name)
    _agree(name, examples[0], "icarus")


@pytest.mark.slow
@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_icarus_agrees_with_amaranth_on_every_example(name):
    require_simulator("icarus")
    _, examples = load(name)
    for args in examples:
        _agree(name, args, "icarus")


@pytest.mark.slow
@pytest.mark.parametrize("name", QUICK)
def test_verilator_agrees_with_amaranth(name):
    require_simulator("verilator")
    _, examples = load(name)
    _agree(name, examples[0], "verilator")


def test_sim_run_delegates_to_icarus():
    require_simulator("icarus")
    kernel, examples = load("vsum")
    result = run(kernel, examples[0], backend="icarus")
    assert result.backend == "icarus" and result.match
    assert result.to_json()["outputs"] == result.expected


def test_vcd_names_signals_after_python_variables(tmp_path):
    require_simulator("icarus")
    kernel, examples = load("gsumif")
    target = tmp_path / "gsumif.vcd"
    run(kernel, examples[1], backend="icarus", vcd=target)
    header = target.read_text().split("$enddefinitions")[0]
    # The back end names a kernel variable v `var_v` (see docs/compiler.md).  The loop's `i` is
    # not read after the loop: dead code (hls.ir.dead), so no register of it is built.
    for variable in ("var_s", "var_n", "ctrl__start"):
        assert f" {variable} " in header, variable
    assert " var_i " not in header


def test_timeout_is_a_simulation_timeout():
    require_simulator("icarus")
    kernel, examples = load("vsum")
    # 64 loop iterations fit the bound of the Python run, and the hardware needs 69 cycles.
    with pytest.raises(SimulationTimeout, match="not raised within 66 cycles") as info:
        run(kernel, examples[0], backend="icarus", max_cycles=66)
    assert isinstance(info.value, CocotbTimeout)


def test_bad_arguments_are_reported_before_building():
    kernel, examples = load("vsum")
    args = dict(examples[0])
    args["a"] = args["a"][:-1]
    with pytest.raises(ValueError):
        run(kernel, args, backend="icarus")
    with pytest.raises(ValueError, match="'ghdl'"):
        run(kernel, examples[0], backend="ghdl")


@pytest.mark.slow
def test_verilator_builds_a_design_split_over_several_cpp_files():
    """fuzz_8_0 is big enough for Verilator to split its C++ and use a precompiled
    header, which the PyPI wheel's verilated.mk breaks (see sim.tools._verilator_make_fix)."""
    require_simulator("verilator")
    from sim import fuzz
    verdict = fuzz.check(fuzz.generate(8, 0), backend="verilator")
    assert verdict.passed, verdict.detail
