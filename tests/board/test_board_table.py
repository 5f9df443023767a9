"""The boards table of ``hls.board.boards`` agrees with amaranth-boards' platform files, and ``--list-boards``."""

from __future__ import annotations

import json

import pytest
from amaranth.vendor import LatticeECP5Platform, LatticeICE40Platform

from axhls.cli import main
from hls.board.boards import BOARDS, board_named
from hls.board.pll import output_range


@pytest.mark.parametrize("name", list(BOARDS))
def test_each_board_matches_its_platform(name):
    board = BOARDS[name]
    platform = board.platform_class()()
    family_class = {"ecp5": LatticeECP5Platform, "ice40": LatticeICE40Platform}[board.family]
    assert isinstance(platform, family_class)
    assert platform.device == board.device
    assert platform.default_clk_frequency == board.oscillator_mhz * 1e6
    assert ("uart", 0) in platform.resources, f"{name} has no uart 0 for the host link"
    low, high = output_range(board.family)
    assert low <= board.default_clock_mhz <= high
    assert board.pll_primitive in {"ecp5": {"EHXPLLL"}, "ice40": {"SB_PLL40_PAD", "SB_PLL40_CORE"}}[board.family]


def test_the_issues_boards_are_there():
    assert {"ulx3s-85f", "icebreaker"} <= set(BOARDS)
    assert BOARDS["ulx3s-85f"].family == "ecp5" and BOARDS["icebreaker"].family == "ice40"


def test_an_unknown_board_names_every_board():
    with pytest.raises(ValueError, match=r"unknown board 'ulx3s'; boards: ulx3s-85f, .*icebreaker"):
        board_named("ulx3s")


def test_list_boards(capsys):
    assert main(["build", "--list-boards"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["board", "device"]
    assert [line.split()[0] for line in lines[1:]] == list(BOARDS)
    assert "LFE5U-85F" in lines[1] and "25 MHz" in lines[1] and "10-400 MHz" in lines[1]
    assert main(["build", "--list-boards", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["boards"]
    assert [board["name"] for board in listed] == list(BOARDS)
    assert listed[0]["clock_range_mhz"] == [10, 400]
