# amaranth: UnusedElaboratable=no
"""``sim.run``'s waveform and errors: the destination is checked before any work, the VCD
is written atomically (an interrupted or failed run leaves nothing), and a timeout is one line."""

import gc
import os
import tempfile
import warnings

import pytest
from amaranth.sim import Simulator

import artefacts
import sim.kernel
from benchmarks.kernels import load
from sim import cocotb_kernel
from sim.errors import CocotbTimeout, SimulationTimeout
from sim.kernel import run
from sim_helpers import require_simulator


def _vsum():
    kernel, examples = load("vsum")
    return kernel, examples[0]


def _never_compile(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the kernel was compiled before the destination was checked")
    monkeypatch.setattr(sim.kernel, "compile_kernel", refuse)


@pytest.mark.parametrize("backend", ["amaranth", "icarus"])
def test_a_directory_as_vcd_is_one_error_before_simulating(backend, tmp_path, monkeypatch):
    _never_compile(monkeypatch)
    kernel, args = _vsum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(artefacts.DestinationError) as info:
            run(kernel, args, backend=backend, vcd=tmp_path)
        gc.collect()  # an unawaited testbench coroutine would warn when collected
    assert str(info.value) == f"{tmp_path}: is a directory; expected a file name"
    assert isinstance(info.value, ValueError)  # the command line's exit 2
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_vcd_in_a_missing_or_unwritable_folder_is_one_error(tmp_path, monkeypatch):
    _never_compile(monkeypatch)
    kernel, args = _vsum()
    with pytest.raises(artefacts.DestinationError, match=r"w\.vcd: directory .*missing does not exist$"):
        run(kernel, args, vcd=tmp_path / "missing" / "w.vcd")
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        with pytest.raises(artefacts.DestinationError, match="cannot write there"):
            run(kernel, args, vcd=locked / "w.vcd")


def test_vcd_is_written_whole_with_the_outputs_mode(tmp_path):
    kernel, args = _vsum()
    target = tmp_path / "vsum.vcd"
    result = run(kernel, args, vcd=target)
    assert result.match
    text = target.read_text()
    assert "$enddefinitions" in text and " ctrl__start " in text.split("$enddefinitions")[0]
    assert target.stat().st_mode & 0o777 == artefacts.FILE_MODE
    assert os.listdir(tmp_path) == ["vsum.vcd"]


def test_interrupted_amaranth_run_leaves_no_vcd(tmp_path, monkeypatch):
    """Ctrl-C in the middle of the simulation, after the VCD writer has started writing."""
    kernel, args = _vsum()
    steps = []
    advance = Simulator.advance

    def interrupted(self):
        steps.append(1)
        if len(steps) == 40:
            raise KeyboardInterrupt
        return advance(self)

    monkeypatch.setattr(Simulator, "advance", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(kernel, args, vcd=tmp_path / "vsum.vcd")
    assert len(steps) == 40
    assert os.listdir(tmp_path) == []


def test_interrupted_run_leaves_an_existing_vcd_as_it_was(tmp_path, monkeypatch):
    kernel, args = _vsum()
    target = tmp_path / "vsum.vcd"
    target.write_text("the previous waveform\n")
    steps = []
    advance = Simulator.advance

    def interrupted(self):
        steps.append(1)
        if len(steps) == 10:
            raise KeyboardInterrupt
        return advance(self)

    monkeypatch.setattr(Simulator, "advance", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(kernel, args, vcd=target)
    assert target.read_text() == "the previous waveform\n"
    assert os.listdir(tmp_path) == ["vsum.vcd"]


@pytest.mark.cocotb
def test_interrupted_icarus_run_leaves_no_vcd_and_no_work_directory(tmp_path, monkeypatch):
    """Ctrl-C right after the simulator wrote its waveform, before it is installed."""
    require_simulator("icarus")
    kernel, args = _vsum()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    outputs = tmp_path / "out"
    outputs.mkdir()
    real_run = cocotb_kernel.run_testbench

    def interrupted(*arguments, **keywords):
        log = real_run(*arguments, **keywords)
        assert (log.parent / "dump.vcd").stat().st_size > 0
        raise KeyboardInterrupt

    monkeypatch.setattr(cocotb_kernel, "run_testbench", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(kernel, args, backend="icarus", vcd=outputs / "vsum.vcd")
    assert os.listdir(outputs) == []
    assert os.listdir(scratch) == []


@pytest.mark.parametrize("backend", ["amaranth", "icarus"])
def test_too_small_max_cycles_is_a_one_line_timeout_and_no_vcd(backend, tmp_path):
    if backend != "amaranth":
        require_simulator(backend)
    kernel, args = _vsum()
    # 64 loop iterations fit the bound of the Python run (max_cycles bounds it too); the hardware needs 69 cycles.
    with pytest.raises(SimulationTimeout) as info:
        run(kernel, args, backend=backend, max_cycles=66, vcd=tmp_path / "vsum.vcd")
    message = str(info.value)
    assert "\n" not in message and "66 cycles" in message and "vsum" in message
    assert isinstance(info.value, CocotbTimeout) == (backend != "amaranth")
    assert os.listdir(tmp_path) == []


def test_max_cycles_bounds_the_python_run_before_anything_is_compiled(tmp_path, monkeypatch):
    """A loop of more iterations than max_cycles could not finish in time in hardware either: the
    golden run stops there (a `while` that never ends would hang it), before the compiler runs."""
    from hls.errors import KernelLoopLimit
    kernel, args = _vsum()                      # 64 iterations
    _never_compile(monkeypatch)
    with pytest.raises(KernelLoopLimit, match=r"vsum\.py:\d+: the Python run stopped after 63 iterations") as info:
        run(kernel, args, max_cycles=63, vcd=tmp_path / "vsum.vcd")
    assert info.value.limit == 63
    assert os.listdir(tmp_path) == []
