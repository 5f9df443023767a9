"""Kernel methods that hand over to the compiler: to_amaranth, to_verilog (atomic), report."""

import os
from pathlib import Path

import pytest

import artefacts
from amaranth.lib import wiring


@pytest.fixture
def vsum(load_source):
    module, _ = load_source("""
        @hls.kernel
        def vsum(a: hls.Array[signed(8), 4], n: unsigned(3)) -> signed(12):
            s: signed(12) = 0
            for i in range(n):
                s = s + a[i]
            return s
    """)
    return module.vsum


def test_to_amaranth_gives_a_fresh_component(vsum):
    from amaranth.hdl import Fragment
    first, second = vsum.to_amaranth(), vsum.to_amaranth()
    assert isinstance(first, wiring.Component)
    assert first is not second
    for component in (first, second):
        Fragment.get(component, None)   # elaborates (and marks them used)


def test_to_verilog_writes_atomically(vsum, tmp_path):
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    path = tmp_path / "vsum.v"
    written = vsum.to_verilog(path)
    assert written == path and isinstance(written, Path)       # the path, not 13 KB of text in a REPL
    text = path.read_text()
    assert text == vsum.to_verilog() and "module" in text
    assert sorted(os.listdir(tmp_path)) == ["vsum.v"]          # no temporary file left behind
    assert path.stat().st_mode & 0o777 == 0o644                # the mode of every output
    missing = tmp_path / "missing" / "vsum.v"
    with pytest.raises(artefacts.DestinationError, match=f"^{missing}: directory .* does not exist"):
        vsum.to_verilog(missing)
    assert sorted(os.listdir(tmp_path)) == ["vsum.v"]
    with pytest.raises(artefacts.DestinationError, match=r"^/proc/x\.v: cannot write there"):
        vsum.to_verilog("/proc/x.v")                           # named as given, not a temporary


def test_report_names_the_kernel(vsum):
    report = vsum.report()
    assert report.to_json()["kernel"] == "vsum"
    assert "vsum" in report.to_text()
