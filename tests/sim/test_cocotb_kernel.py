# amaranth: UnusedElaboratable=no
"""The generated cocotb testbench and its memory models, on a hand-written kernel component.

``handmade.ScaleSum`` follows the compiler's port convention, so these tests
check the testbench independently of the compiler: results and final arrays
against the Python model, and the cycle count against the state machine's
known timing (1 + 2n + 1).
"""

import pytest
from amaranth.back import verilog

from sim_helpers import require_simulator
from handmade import ScaleSum, expected_cycles, golden
from sim.cocotb_kernel import simulate_verilog, spec_from_component, spec_from_signature
from sim.errors import CocotbRunError
from sim.testbenches import TestbenchSpec

pytestmark = pytest.mark.cocotb

INPUTS = [
    ([3, -4, 5, 100, -128, 7, 0, 1], 7, -3),
    ([127, -128, 1, -1, 64, -64, 2, -2], 5, 7),
    ([9, 9, 9, 9, 9, 9, 9, 9], 0, 5),  # zero-trip loop: nothing read, nothing written
]


@pytest.fixture(scope="module")
def design():
    component = ScaleSum()
    return verilog.convert(component, name="scale_sum"), spec_from_component(component, toplevel="scale_sum")


def test_spec_reads_the_port_convention(design):
    _, spec = design
    assert spec.start == "ctrl__start" and spec.done == "ctrl__done"
    assert {name: (port.port, port.width, port.signed) for name, port in spec.scalars.items()} == {
        "n": ("n", 4, False), "k": ("k", 4, True)}
    assert [(port.port, port.width, port.signed) for port in spec.returns] == [
        ("ret_0", 16, True), ("ret_1", 4, False)]
    (array,) = spec.arrays
    assert (array.name, array.depth, array.element.width, array.element.signed) == ("a", 8, 8, True)
    assert (array.read_addr, array.write_data) == ("a_read__addr", "a_write__data")
    assert TestbenchSpec.from_json(spec.to_json()) == spec


@pytest.mark.parametrize("a, n, k", INPUTS)
def test_icarus_matches_python_and_cycle_count(design, a, n, k):
    require_simulator("icarus")
    text, spec = design
    run = simulate_verilog(text, spec, {"a": a, "n": n, "k": k}, simulator="icarus")
    (s, negatives), final = golden(a, n, k)
    assert run.returns == [s, negatives]
    assert run.arrays == {"a": final}
    assert run.cycles == expected_cycles(n)


def test_short_array_argument_is_padded_with_zeros(design):
    require_simulator("icarus")
    text, spec = design
    run = simulate_verilog(text, spec, {"a": [5, -6], "n": 4, "k": 2}, simulator="icarus")
    (s, negatives), final = golden([5, -6, 0, 0, 0, 0, 0, 0], 4, 2)
    assert run.returns == [s, negatives] and run.arrays == {"a": final}


def test_icarus_writes_a_vcd_with_the_design_signals(design, tmp_path):
    require_simulator("icarus")
    text, spec = design
    target = tmp_path / "waves" / "scale_sum.vcd"
    target.parent.mkdir()
    run = simulate_verilog(text, spec, {"a": [1] * 8, "n": 2, "k": 3}, simulator="icarus", vcd=target)
    assert run.vcd == target
    header = target.read_text().split("$enddefinitions")[0]
    for signal in ("ctrl__start", "ctrl__done", "a_read__addr", "negatives"):
        assert f" {signal} " in header
    assert not list(target.parent.glob(".*"))  # no temporary file left behind
    assert target.stat().st_mode & 0o777 == 0o644


def test_vcd_destination_is_checked_before_building(design, tmp_path, monkeypatch):
    """A waveform destination that cannot be written is one error, before any build or run."""
    import artefacts
    from sim import cocotb_kernel

    def no_run(*args, **kwargs):
        raise AssertionError("the testbench ran")

    monkeypatch.setattr(cocotb_kernel, "run_testbench", no_run)
    text, spec = design
    args = {"a": [1] * 8, "n": 2, "k": 3}
    with pytest.raises(artefacts.DestinationError, match=f"^{tmp_path}: is a directory; expected a file name$"):
        simulate_verilog(text, spec, args, vcd=tmp_path)
    missing = tmp_path / "no" / "w.vcd"
    with pytest.raises(artefacts.DestinationError, match="does not exist"):
        simulate_verilog(text, spec, args, vcd=missing)


def test_verilator_matches_icarus(design, tmp_path):
    require_simulator("verilator")
    text, spec = design
    args = {"a": INPUTS[0][0], "n": INPUTS[0][1], "k": INPUTS[0][2]}
    run = simulate_verilog(text, spec, args, simulator="verilator", vcd=tmp_path / "v.vcd")
    (s, negatives), final = golden(*INPUTS[0])
    assert run.returns == [s, negatives] and run.arrays == {"a": final}
    assert run.cycles == expected_cycles(INPUTS[0][1])
    assert "$enddefinitions" in (tmp_path / "v.vcd").read_text()


def test_kernel_that_never_finishes_is_reported(design):
    require_simulator("icarus")
    text, spec = design
    impatient = TestbenchSpec.from_json({**spec.to_json(), "max_cycles": 5})
    with pytest.raises(CocotbRunError, match=r"ctrl__done not raised within 5 cycles"):
        simulate_verilog(text, impatient, {"a": [0] * 8, "n": 7, "k": 1}, simulator="icarus")


def test_missing_scalar_argument_is_reported(design):
    require_simulator("icarus")
    text, spec = design
    with pytest.raises(CocotbRunError, match="no value for scalar argument 'k'"):
        simulate_verilog(text, spec, {"a": [0] * 8, "n": 1}, simulator="icarus")


def test_too_long_array_argument_is_a_value_error(design):
    text, spec = design
    with pytest.raises(ValueError, match="'a' has 9 values, more than its depth 8"):
        simulate_verilog(text, spec, {"a": [0] * 9, "n": 1, "k": 1})


def test_unknown_simulator_is_a_value_error(design):
    text, spec = design
    with pytest.raises(ValueError, match="not 'modelsim'"):
        simulate_verilog(text, spec, {}, simulator="modelsim")


def test_component_without_handshake_is_rejected():
    from amaranth.lib import wiring
    from amaranth.lib.wiring import In, Out

    class Adder(wiring.Component):
        a: In(8)
        o: Out(8)

        def elaborate(self, platform):
            raise AssertionError("not elaborated")

    with pytest.raises(ValueError, match="'adder': its signature is not a KernelSignature"):
        spec_from_component(Adder(), toplevel="adder")


def test_depth_beyond_the_address_width_is_rejected():
    with pytest.raises(ValueError, match=r"depth must be in 1\.\.8 for a 3-bit address, not 9"):
        spec_from_component(ScaleSum(), toplevel="scale_sum", depths={"a": 9})


def test_prune_cache_keeps_recent_builds_and_removes_old_unused_ones(tmp_path):
    import os
    import time
    from sim.cocotb_run import prune_cache
    now = time.time()
    ages_days = [0, 1, 2, 10, 20, 30]
    for i, age in enumerate(ages_days):
        build = tmp_path / f"icarus-top-{i}"
        build.mkdir()
        (build / "built.ok").write_text("ok\n")
        os.utime(build / "built.ok", (now - age * 86400,) * 2)
        (tmp_path / f"icarus-top-{i}.lock").write_text("")
    (tmp_path / "icarus-top-interrupted").mkdir()       # no stamp: a build in progress
    removed = prune_cache(tmp_path, keep=2, older_than_days=7)
    assert sorted(p.name for p in removed) == ["icarus-top-3", "icarus-top-4", "icarus-top-5"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "icarus-top-0", "icarus-top-0.lock", "icarus-top-1", "icarus-top-1.lock",
        "icarus-top-2", "icarus-top-2.lock", "icarus-top-interrupted"]


def test_spec_takes_names_and_depths_from_the_kernel_signature():
    from amaranth.hdl import signed, unsigned

    from hls.backend.component import KernelSignature

    signature = KernelSignature(scalars={"rows": unsigned(4)}, results=[signed(9)],
                                arrays={"row": (unsigned(7), 9)})
    spec = spec_from_signature(signature, toplevel="csr")
    assert [(p.port, p.width, p.signed) for p in spec.returns] == [("ret", 9, True)]
    (array,) = spec.arrays
    assert (array.name, array.depth, array.read_en, array.write_en) == ("row", 9, "row_read__en", "row_write__en")
    assert spec_from_signature(signature, toplevel="csr", depths={"row": 16}).arrays[0].depth == 16
    with pytest.raises(ValueError, match=r"depth must be in 1\.\.16 for a 4-bit address, not 17"):
        spec_from_signature(signature, toplevel="csr", depths={"row": 17})
    with pytest.raises(ValueError, match=r"'csr' has no ports for array\(s\) col"):
        spec_from_signature(signature, toplevel="csr", depths={"col": 4})
