"""The one build-and-run path, :func:`sim.cocotb_run.run_testbench`, with a test module of the caller's own."""

import json

import pytest

from sim.cocotb_run import run_testbench
from sim.errors import CocotbRunError
from sim_helpers import require_simulator

pytestmark = pytest.mark.cocotb

ADDER = """
module adder(input [7:0] a, input [7:0] b, output [8:0] o);
  assign o = a + b;
endmodule
"""

TEST_MODULE = '''
import json, os
from pathlib import Path

import cocotb
from cocotb.triggers import Timer


@cocotb.test()
async def add(dut):
    work = Path(os.environ["AXHLS_WORK_DIR"])
    pairs = json.loads((work / "pairs.json").read_text())
    sums = []
    for a, b in pairs:
        dut.a.value, dut.b.value = a, b
        await Timer(1, "ns")
        sums.append(dut.o.value.to_unsigned())
    (work / "sums.json").write_text(json.dumps(sums))
'''


def test_a_callers_test_module_runs_on_the_cached_build(tmp_path):
    require_simulator("icarus")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "adder_test.py").write_text(TEST_MODULE)
    work = tmp_path / "work"
    work.mkdir()
    pairs = [[0, 0], [255, 255], [17, 200], [128, 127]]
    (work / "pairs.json").write_text(json.dumps(pairs))
    log = run_testbench(ADDER, "adder", test_module="adder_test", test_dir=tests, work_dir=work)
    assert log.parent == work and log.exists()
    assert json.loads((work / "sums.json").read_text()) == [a + b for a, b in pairs]


def test_a_design_that_does_not_build_is_one_line_naming_the_log(tmp_path):
    require_simulator("icarus")
    with pytest.raises(CocotbRunError) as info:
        run_testbench("module broken(input a); assign = ; endmodule\n", "broken",
                      test_module="sim.cocotb_tests", work_dir=tmp_path)
    assert "\n" not in str(info.value) and "could not build broken" in str(info.value)
    assert info.value.log is not None and info.value.log.exists()
