"""benchmarks/apps.py's command line and its per-seed placement cache (no tool runs here)."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from approx_units import synth  # noqa: E402
from benchmarks import apps  # noqa: E402


@pytest.mark.parametrize("argv, message", [
    (["--seeds", "0"], "--seeds must be 1..20, not 0"),
    (["--seeds", "21"], "--seeds must be 1..20, not 21"),
    (["--config", "mitchell"], "must include 'exact'"),
    (["--config", "exact", "nonsense"], "unknown configuration(s) nonsense"),
    (["--version"], "--version needs sequential, chained or both"),
    (["--version", "parallel"], "invalid choice: 'parallel'"),
])
def test_bad_options_are_one_line_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        apps.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_seeds_already_placed_run_no_tool(tmp_path, monkeypatch):
    """Each seed is cached under its own key: a cached seed is not placed again, and each
    report has its seed's Fmax, with the same cells."""
    cache = synth.ResultCache(tmp_path)
    verilog, top = "module k(input clk); endmodule\n", "k"
    cells = {"LUT4": 10, "CCU2C": 2, "TRELLIS_FF": 5}
    for seed, fmax in ((1, 101.5), (2, 97.25), (3, 104.0)):
        cache.put(synth.kernel_result_key(verilog, top, 100, seed),
                  synth.AreaReport.from_cells("ecp5", cells, fmax).to_dict())
    monkeypatch.setattr(synth, "_run", lambda *args, **kwargs: pytest.fail("a tool ran for a cached seed"))
    reports = synth.synthesize_kernel_seeds(verilog, top, clock_mhz=100, seeds=range(1, 4), cache=cache)
    assert [r.fmax_mhz for r in reports] == [101.5, 97.25, 104.0]
    assert {r.lut_equivalents for r in reports} == {14}
    # cached_only: the cached seeds' reports, or None when one is missing, and no tool either way.
    assert [r.fmax_mhz for r in synth.synthesize_kernel_seeds(verilog, top, clock_mhz=100, seeds=(2,), cache=cache,
                                                              cached_only=True)] == [97.25]
    assert synth.synthesize_kernel_seeds(verilog, top, clock_mhz=100, seeds=(1, 4), cache=cache,
                                         cached_only=True) is None
    # Another clock, another target or another flow's key is another placement.
    assert synth.synthesize_kernel_seeds(verilog, top, clock_mhz=150, seeds=(1,), cache=cache,
                                         cached_only=True) is None
    assert synth.kernel_result_key(verilog, top, 100, 1, "ice40") != synth.kernel_result_key(verilog, top, 100, 1)
    # A seed not in the cache is placed: the tool runs.
    with pytest.raises(pytest.fail.Exception, match="a tool ran"):
        synth.synthesize_kernel_seeds(verilog, top, clock_mhz=100, seeds=(1, 4), cache=cache)
