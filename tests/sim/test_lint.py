"""Verilator lint of Amaranth's Verilog, with the documented waivers."""

import pytest

from sim_helpers import require_simulator
from handmade import ScaleSum
from sim.lint import WAIVERS, LintMessage, Waiver, lint_component, lint_verilog, parse_messages


def test_every_waiver_gives_a_reason():
    codes = [waiver.code for waiver in WAIVERS]
    assert len(codes) == len(set(codes))
    for waiver in WAIVERS:
        assert len(waiver.reason) > 40, waiver.code


def test_parse_messages_reads_codes_and_positions():
    output = ("%Warning-WIDTHEXPAND: top.v:86:19: Operator EQ expects 5 bits on the RHS\n"
              "                      : ... note\n"
              "%Error: top.v:3:1: syntax error, unexpected endmodule\n"
              "%Error: Exiting due to 1 warning(s)\n")
    assert parse_messages(output) == [
        LintMessage("Warning", "WIDTHEXPAND", 86, 19, "Operator EQ expects 5 bits on the RHS"),
        LintMessage("Error", "", 3, 1, "syntax error, unexpected endmodule"),
    ]


def test_waiver_with_message_pattern_is_narrow():
    waiver = Waiver("WIDTHTRUNC", "reason", r"Logical operator LOGNOT")
    assert waiver.waives(LintMessage("Warning", "WIDTHTRUNC", 1, 1, "Logical operator LOGNOT expects 1 bit"))
    assert not waiver.waives(LintMessage("Warning", "WIDTHTRUNC", 1, 1, "Operator ASSIGN expects 4 bits"))


def test_handmade_kernel_is_clean_after_waivers():
    require_simulator("verilator")
    report = lint_component(ScaleSum(), "scale_sum")
    assert report.clean, report.summary()
    assert report.waived  # Amaranth's output does trip the waived classes


def test_real_problems_are_not_waived():
    require_simulator("verilator")
    report = lint_verilog(
        "module bad(input wire [3:0] a, output wire [3:0] y, output wire z);\n"
        "  assign y = a;\n"
        "endmodule\n", "bad")
    assert not report.clean
    assert [message.code for message in report.problems] == ["UNDRIVEN"]
    assert "'z'" in report.problems[0].text


def test_syntax_error_is_a_problem():
    require_simulator("verilator")
    report = lint_verilog("module broken(input a);\n  assign = ;\nendmodule\n", "broken")
    assert not report.clean
    assert report.problems[0].severity == "Error"


def _unit_variants():
    try:
        import approx_units
    except ModuleNotFoundError:
        return []
    variants = []
    for name in approx_units.names():
        # Combinational unsigned, and pipelined in the signed variant where there is one:
        # between them every construct of the unit's Verilog appears.
        has_signed = "signed" in approx_units.get(name, width=8).params
        variants += [(name, 0, False), (name, 2, has_signed)]
    return variants


@pytest.mark.parametrize("name, stages, signed", _unit_variants())
def test_every_catalog_unit_is_clean_after_waivers(name, stages, signed):
    require_simulator("verilator")
    import approx_units
    unit = approx_units.get(name, width=8, stages=stages, **({"signed": True} if signed else {}))
    report = lint_component(unit.component(), f"{name}_s{stages}{'_signed' if signed else ''}")
    assert report.clean, report.summary()


def _kernel_names():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parents[2]))  # benchmarks/ is not an installed package
    try:
        from benchmarks.kernels import KERNEL_NAMES
    except ModuleNotFoundError:
        return []
    return list(KERNEL_NAMES)


@pytest.mark.parametrize("name", _kernel_names())
def test_every_benchmark_kernel_is_clean_after_waivers(name):
    require_simulator("verilator")
    from benchmarks.kernels import load
    from hls.compiler import compile_kernel
    kernel, _ = load(name)
    report = lint_verilog(compile_kernel(kernel).verilog(name), name)
    assert report.clean, report.summary()


def test_command_line_exit_status(tmp_path, capsys):
    require_simulator("verilator")
    from sim.lint import main
    good = tmp_path / "good.v"
    good.write_text("module good(input wire a, output wire y);\n  assign y = a;\nendmodule\n")
    bad = tmp_path / "bad.v"
    bad.write_text("module bad(input wire a, output wire y, output wire z);\n  assign y = a;\nendmodule\n")
    assert main([str(good)]) == 0
    assert main([str(bad)]) == 1
    assert "UNDRIVEN" in capsys.readouterr().out
    assert main([str(tmp_path / "missing.v")]) == 2
    assert "cannot read" in capsys.readouterr().err
