"""The Yosys/nextpnr flow on small hand-written netlists: counts, wrapper, cache, errors."""

import json

import pytest

from approx_units import synth

MUL4 = """
module mul4(input [3:0] a, input [3:0] b, output [7:0] o);
  assign o = a * b;
endmodule
"""

# One register stage: 8 output bits + valid, reset by rst.
MUL4_PIPELINED = """
module mul4p(input clk, input rst, input [3:0] a, input [3:0] b, input valid_in,
             output reg [7:0] o, output reg valid_out);
  always @(posedge clk) begin
    if (rst) begin o <= 0; valid_out <= 0; end
    else begin o <= a * b; valid_out <= valid_in; end
  end
endmodule
"""


@pytest.fixture
def cache(tmp_path):
    return synth.ResultCache(tmp_path / "cache")


def test_ecp5_combinational_counts_and_fmax(cache):
    report = synth.synthesize_verilog(MUL4, "mul4", "ecp5", cache=cache)
    assert report.luts == report.cells["LUT4"] > 0
    assert report.ffs == 0          # the timing wrapper's 16 flip-flops are not the unit's
    assert report.fmax_mhz is not None and 50 < report.fmax_mhz < 1000
    assert report.lut_equivalents == report.luts + 2 * report.carry
    assert report.adp == pytest.approx(report.lut_equivalents * 1000 / report.fmax_mhz)


def test_carry_only_adder_has_area_and_adp(cache):
    # Yosys maps a 4-bit adder on ECP5 wholly into CCU2C cells: no LUT4 at all.
    import approx_units
    adder = approx_units.get("exact_add", width=4)
    report = synth.synthesize_unit(adder, "ecp5", cache=cache)
    assert report.luts == 0 and report.carry > 0
    assert report.lut_equivalents == 2 * report.carry
    assert report.adp == pytest.approx(report.lut_equivalents * report.critical_path_ns) and report.adp > 0


def test_lut_equivalents_per_target():
    ecp5 = synth.AreaReport.from_cells("ecp5", {"LUT4": 10, "CCU2C": 3, "TRELLIS_FF": 4, "PFUMX": 1}, 250.0)
    assert (ecp5.luts, ecp5.carry, ecp5.ffs, ecp5.lut_equivalents) == (10, 3, 4, 16)
    assert ecp5.critical_path_ns == pytest.approx(4.0) and ecp5.adp == pytest.approx(64.0)
    # A CARRY4's propagate inputs come from LUTs that are counted already.
    xc7 = synth.AreaReport.from_cells("xc7", {"LUT2": 4, "LUT6": 3, "CARRY4": 2, "FDRE": 5}, None)
    assert (xc7.luts, xc7.carry, xc7.ffs, xc7.lut_equivalents, xc7.adp) == (7, 2, 5, 7, None)
    # An iCE40 logic cell holds one SB_LUT4 and one SB_CARRY.
    ice40 = synth.AreaReport.from_cells("ice40", {"SB_LUT4": 8, "SB_CARRY": 8, "SB_DFFSR": 2}, 100.0)
    assert (ice40.luts, ice40.carry, ice40.ffs, ice40.lut_equivalents) == (8, 8, 2, 8)
    assert ice40.adp == pytest.approx(80.0)
    carries_beyond_luts = synth.AreaReport.from_cells("ice40", {"SB_LUT4": 5, "SB_CARRY": 9}, None)
    assert carries_beyond_luts.lut_equivalents == 9
    # LUT RAM occupies LUT sites: nextpnr-ecp5 counts a DPR16X4 as 4 RAM LUT4s and 2 RAMW LUT4s.
    lut_ram = synth.AreaReport.from_cells("ecp5", {"LUT4": 20, "CCU2C": 6, "TRELLIS_DPR16X4": 4}, None)
    assert (lut_ram.luts, lut_ram.rams, lut_ram.lut_equivalents) == (20, 4, 20 + 12 + 24)
    assert synth.AreaReport.from_cells("xc7", {"LUT6": 3, "RAM32M": 2}, None).lut_equivalents == 3 + 8
    with pytest.raises(ValueError, match="not 'virtex2'"):
        synth.AreaReport.from_cells("virtex2", {}, None)


def test_counts_are_derived_afresh_from_cached_cells(cache):
    # A result cached before lut_equivalents existed: its adp counted LUT4s only.
    key_report = synth.synthesize_verilog(MUL4, "mul4", "ecp5", timing=False, cache=cache)
    [path] = cache.directory.iterdir()
    old = {"target": "ecp5", "luts": 0, "carry": 5, "ffs": 0, "dsps": 0, "rams": 0, "fmax_mhz": 200.0,
           "critical_path_ns": 5.0, "adp": 0.0, "cells": {"CCU2C": 5}}
    path.write_text(json.dumps(old))
    report = synth.synthesize_verilog(MUL4, "mul4", "ecp5", timing=False, cache=cache)
    assert report is not key_report and report.lut_equivalents == 10 and report.adp == pytest.approx(50.0)


def test_lut_equivalents_agree_with_nextpnr(cache):
    # nextpnr-ecp5 counts each CCU2C as two "carry LUTs" in its LUT4 total before packing.
    import approx_units
    unit = approx_units.get("loa", width=8, l=3)
    verilog = synth.unit_verilog(unit, "loa8")
    report = synth.synthesize_verilog(verilog, "loa8", "ecp5", timing=False, cache=cache)
    assert report.luts > 0 and report.carry > 0
    placed = synth.placed_utilisation(verilog, "loa8", "ecp5")
    assert placed["LUT4s before packing"] == report.lut_equivalents
    # After packing, TRELLIS_COMB adds the constant drivers and the carry chain's feed cells.
    assert placed["TRELLIS_COMB"] >= report.lut_equivalents
    with pytest.raises(ValueError, match="place and route"):
        synth.placed_utilisation(verilog, "loa8", "xc7")


def test_ice40_lut_equivalents_bound_nextpnr_logic_cells(cache):
    # nextpnr-ice40 packs each SB_CARRY with the SB_LUT4 that shares its inputs; GeAr's
    # carries outnumber its LUT4s, and the rest get logic cells of their own.
    import approx_units
    unit = approx_units.get("gear", width=8)
    verilog = synth.unit_verilog(unit, "gear8")
    report = synth.synthesize_verilog(verilog, "gear8", "ice40", timing=False, cache=cache)
    assert report.carry > report.luts and report.lut_equivalents == report.carry
    placed = synth.placed_utilisation(verilog, "gear8", "ice40")
    assert report.lut_equivalents <= report.luts + placed["carry-only LCs"] <= placed["ICESTORM_LC"]


def test_flip_flops_of_the_unit_are_counted(cache):
    report = synth.synthesize_verilog(MUL4_PIPELINED, "mul4p", "ecp5", timing=False, cache=cache)
    assert report.ffs == 9
    assert report.fmax_mhz is None and report.adp is None


def test_xc7_and_ice40_cells(cache):
    xc7 = synth.synthesize_verilog(MUL4, "mul4", "xc7", cache=cache)
    assert xc7.luts == sum(v for k, v in xc7.cells.items() if k in {f"LUT{i}" for i in range(1, 7)})
    assert xc7.fmax_mhz is None            # no pip-installable place and route for Xilinx 7
    ice40 = synth.synthesize_verilog(MUL4, "mul4", "ice40", timing=False, cache=cache)
    assert ice40.luts == ice40.cells["SB_LUT4"] > 0


def test_second_request_is_served_from_the_cache(cache, monkeypatch):
    first = synth.synthesize_verilog(MUL4, "mul4", "ecp5", timing=False, cache=cache)
    assert (cache.hits, cache.misses) == (0, 1)

    def no_tools(*args, **kwargs):
        raise AssertionError("a cached result ran a tool")
    monkeypatch.setattr(synth, "_run", no_tools)
    again = synth.synthesize_verilog(MUL4, "mul4", "ecp5", timing=False, cache=cache)
    assert again == first and cache.hits == 1
    # Different flags are a different key.
    with pytest.raises(AssertionError, match="ran a tool"):
        synth.synthesize_verilog(MUL4, "mul4", "ecp5", timing=False, dsp=True, cache=cache)


def test_cache_files_are_complete_json(cache):
    synth.synthesize_verilog(MUL4, "mul4", "ice40", timing=False, cache=cache)
    files = list(cache.directory.iterdir())
    assert len(files) == 1 and files[0].suffix == ".json"
    assert json.loads(files[0].read_text())["target"] == "ice40"


def test_default_cache_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("AXHLS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert synth.default_cache_dir() == tmp_path / "axhls"
    monkeypatch.setenv("AXHLS_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert synth.default_cache_dir() == tmp_path / "elsewhere"


def test_errors(cache):
    with pytest.raises(ValueError, match="target must be one of ecp5, xc7, ice40"):
        synth.synthesize_verilog(MUL4, "mul4", "virtex2", cache=cache)
    with pytest.raises(ValueError, match="dsp=True is not supported for target 'ice40'"):
        synth.synthesize_verilog(MUL4, "mul4", "ice40", dsp=True, cache=cache)
    with pytest.raises(synth.SynthesisError, match="yosys"):
        synth.synthesize_verilog("module broken(input a; endmodule", "broken", "ecp5", cache=cache)


def test_timing_wrapper_registers_every_data_port():
    text = synth.timing_wrapper("u", [("clk", "input", 1), ("rst", "input", 1), ("a", "input", 4),
                                      ("valid_in", "input", 1), ("o", "output", 8)])
    assert ".clk(clk)" in text and ".rst(1'b0)" in text
    assert "r_a <= in_a" in text and "r_valid_in <= in_valid_in" in text and "out_o <= w_o" in text


def test_deep_logic_does_not_exhaust_the_wasm_stack(cache, monkeypatch):
    # abc9's XAIGER writer recurses along the 16-bit divider's long carry chains; with
    # wasmtime's default 512 KiB stack Yosys traps on it for iCE40.
    import approx_units
    divider = approx_units.get("exact_div", width=16)
    verilog = synth.unit_verilog(divider, "div16")
    report = synth.synthesize_verilog(verilog, "div16", "ice40", timing=False, cache=cache)
    assert report.luts > 300 and report.carry > 400
    monkeypatch.setattr(synth, "WASM_STACK_BYTES", 512 << 10)
    with pytest.raises(synth.SynthesisError, match="call stack exhausted"):
        synth.synthesize_verilog(verilog, "div16", "ice40", timing=False, cache=synth.ResultCache(cache.directory / "other"))


def test_library_unit_is_synthesised(cache):
    import approx_units
    unit = approx_units.get("loa", width=4, l=2)
    report = synth.synthesize_unit(unit, "ecp5", cache=cache, timing=False)
    exact = synth.synthesize_unit(approx_units.get("exact_add", width=4), "ecp5", cache=cache, timing=False)
    assert report.luts + report.carry > 0
    assert report.ffs == 0
    # LOA's OR-ed low part makes the carry chain shorter than the exact adder's.
    assert report.carry <= exact.carry


def test_lookup_tables_stay_in_luts(cache):
    # A registered 1024 x 16 ROM of arbitrary values: what Yosys would otherwise put in block RAM.
    import random
    values = random.Random(1).choices(range(1 << 16), k=1024)
    init = "".join(f"    table_[{i}] = 16'd{v};\n" for i, v in enumerate(values))
    rom = ("module rom(input clk, input [9:0] a, output reg [15:0] o);\n"
           "  reg [15:0] table_ [0:1023];\n"
           f"  initial begin\n{init}  end\n"
           "  always @(posedge clk) o <= table_[a];\nendmodule\n")
    lut_only = synth.synthesize_verilog(rom, "rom", "ecp5", timing=False, cache=cache)
    assert lut_only.rams == 0 and lut_only.luts > 500
    hard_blocks = synth.synthesize_verilog(rom, "rom", "ecp5", timing=False, dsp=True, cache=cache)
    assert hard_blocks.rams >= 1 and hard_blocks.luts < 50


def test_cached_only_runs_no_tool(cache, monkeypatch):
    real_run = synth._run

    def counting_run(*args, **kwargs):
        counting_run.calls += 1
        return real_run(*args, **kwargs)
    counting_run.calls = 0
    monkeypatch.setattr(synth, "_run", counting_run)
    assert synth.synthesize_verilog(MUL4, "mul4", "ice40", timing=False, cache=cache, cached_only=True) is None
    assert counting_run.calls == 0
    computed = synth.synthesize_verilog(MUL4, "mul4", "ice40", timing=False, cache=cache)
    assert synth.synthesize_verilog(MUL4, "mul4", "ice40", timing=False, cache=cache,
                                    cached_only=True) == computed
    assert counting_run.calls == 1
