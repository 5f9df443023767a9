"""Ctrl-C or SIGTERM in the middle of a command: exit 130 or 143, no traceback, nothing half-written.

Each test runs ``axhls`` as a child process in a process group of its own,
waits until the command is doing its work, then sends SIGINT to the whole
group, as a terminal's Ctrl-C does (worker processes get it too), or SIGTERM
to the command alone, as ``timeout`` does, or to the whole group, as a batch
system does, and checks what is left: a new output folder is absent, an
existing one unchanged, no staging folder or temporary file remains, and no
process of the group outlives the command.
"""

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

import artefacts
from approx_units import catalog, interrupts
from tests.foreground import FOREGROUND

ROOT = Path(__file__).resolve().parents[2]


#: Runs the command line once every sub-command module is imported, after touching a marker
#: file: a SIGINT before that would land in Python's start-up, not in the command.
LAUNCH = FOREGROUND + (
    "import pathlib, sys\n"
    "import axhls.cli\n"
    "axhls.cli.build_parser()\n"
    "pathlib.Path(sys.argv[1]).touch()\n"
    "sys.exit(axhls.cli.main(sys.argv[2:]))\n"
)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def interrupt(argv, marks: Path, *, ready=lambda: True, after: float = 0.0, timeout: float = 60.0,
              signum=signal.SIGINT, group: bool = True, watch: dict | None = None):
    """Run ``axhls argv``, send ``signum`` to its process group (or, unless ``group``, to the
    command alone) once ``ready()`` and ``after`` seconds.

    ``watch``, if given, receives the process group's id under ``"group"`` (for ``ready``) and
    the time the signal was sent under ``"sent"``.  Returns ``(status, stdout, stderr)``.
    """
    marks.mkdir(exist_ok=True)
    marker = marks / "started"
    process = subprocess.Popen([sys.executable, "-c", LAUNCH, str(marker), *argv], cwd=ROOT,
                               env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, process_group=0)
    pgid = process.pid
    if watch is not None:
        watch["group"] = pgid
    try:
        deadline = time.monotonic() + timeout
        while not (marker.exists() and ready()):
            assert process.poll() is None, f"finished before it could be interrupted: {process.communicate()}"
            assert time.monotonic() < deadline, "never started its work"
            time.sleep(0.02)
        time.sleep(after)
        assert process.poll() is None, f"finished before it could be interrupted: {process.communicate()}"
        if watch is not None:
            watch["sent"] = time.monotonic()
        if group:
            os.killpg(pgid, signum)
        else:
            os.kill(process.pid, signum)
        # Long enough for the running tasks to end on a loaded machine: this catches hangs, not speed.
        out, err = process.communicate(timeout=120)
        deadline = time.monotonic() + 5
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _group_alive(pgid), "a worker process outlived the interrupted command"
        return process.returncode, out, err
    finally:
        if _group_alive(pgid):
            os.killpg(pgid, signal.SIGKILL)
        if process.poll() is None:
            process.wait()


def _assert_interrupted(status, err, signum=signal.SIGINT):
    assert status == 128 + signum, err
    assert "Traceback" not in err, err
    word = "terminated" if signum == signal.SIGTERM else "interrupted"
    assert err.strip().splitlines()[-1] == f"axhls: {word}", err


#: SIGTERM as ``timeout`` sends it (the command alone) and as a batch system does (its process group).
SIGTERMS = [pytest.param(False, id="sigterm-to-the-command"), pytest.param(True, id="sigterm-to-the-group")]


def _staged_verilog(parent: Path, name: str):
    """``ready()`` for an export: its staging folder beside ``name`` holds a Verilog file."""
    def ready():
        return any(entry.name.startswith(f".{name}.") and any(entry.glob("*.v"))
                   for entry in parent.iterdir() if entry.is_dir())
    return ready


def _snapshot(folder: Path) -> dict:
    return {path.name: (path.read_bytes(), path.stat().st_mode) for path in sorted(folder.iterdir())}


def test_interrupted_export_to_a_new_folder_leaves_nothing(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    destination = work / "catalog"
    status, _, err = interrupt(["units", "export", "-o", str(destination), "--no-synth"], tmp_path / "marks",
                               ready=_staged_verilog(work, "catalog"))
    _assert_interrupted(status, err)
    assert list(work.iterdir()) == []           # no folder, no staging folder, no temporary


@pytest.mark.parametrize("group", SIGTERMS)
def test_terminated_export_to_a_new_folder_leaves_no_staging_folder(tmp_path, group):
    work = tmp_path / "work"
    work.mkdir()
    destination = work / "catalog"
    status, out, err = interrupt(["units", "export", "-o", str(destination), "--no-synth", "--json"],
                                 tmp_path / "marks", ready=_staged_verilog(work, "catalog"),
                                 signum=signal.SIGTERM, group=group)
    _assert_interrupted(status, err, signal.SIGTERM)
    assert out == '{"error": "terminated", "status": 143}\n'
    assert list(work.iterdir()) == []           # no folder, no staging folder, no temporary


def _group_runs_a_tool(watch: dict):
    """``ready()``: a yowasp tool runs in the command's process group."""
    def ready():
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                command = (stat.parent / "cmdline").read_bytes()
            except OSError:
                continue                         # it ended meanwhile
            if int(fields[2]) == watch["group"] and b"yowasp" in command:
                return True
        return False
    return ready


def test_terminated_export_ends_the_tools_it_runs_on_threads(tmp_path):
    # SIGTERM to the command alone, as `timeout` sends it, while Yosys maps a 32-bit multiplier
    # (some 10 s): the tools, which the signal does not reach, are ended with the command.
    work = tmp_path / "work"
    work.mkdir()
    watch = {}
    status, _, err = interrupt(["units", "export", "-o", str(work / "catalog"), "--units", "exact_mul",
                                "--widths", "32", "--targets", "ecp5", "--no-timing", "--jobs", "1",
                                "--cache-dir", str(tmp_path / "cache")], tmp_path / "marks",
                               ready=_group_runs_a_tool(watch), signum=signal.SIGTERM, group=False,
                               watch=watch)
    assert time.monotonic() - watch["sent"] < 5, "waited for the running tool"
    _assert_interrupted(status, err, signal.SIGTERM)
    assert list(work.iterdir()) == []


def test_interrupted_export_leaves_an_existing_catalog_as_it_was(tmp_path):
    work = tmp_path / "work"
    destination = work / "netlists"
    catalog.export(destination, targets=(), units=["loa"], widths=(8,))
    before = _snapshot(destination)
    status, _, err = interrupt(["units", "export", "-o", str(destination), "--no-synth"], tmp_path / "marks",
                               ready=_staged_verilog(work, "netlists"))
    _assert_interrupted(status, err)
    assert [p.name for p in work.iterdir()] == ["netlists"]
    assert _snapshot(destination) == before     # not one Verilog file without its catalog.json


def test_interrupted_exhaustive_evaluation_stops_its_workers_quietly(tmp_path):
    # 2^32 operand pairs on two worker processes: far longer than the test waits.
    status, out, err = interrupt(["units", "eval", "mitchell", "--width", "16", "--exhaustive",
                                  "--workers", "2"], tmp_path / "marks", after=1.0)
    _assert_interrupted(status, err)
    assert out == ""


def test_interrupted_sweep_keeps_whole_rows_and_prints_json(tmp_path):
    database = tmp_path / "sweep.sqlite"
    # Sixteen exhaustive 16-bit error jobs on two workers: about 40 s in all under the compiled
    # engine (two take 5.7 s), so the interrupt one second in always lands. 8 million sampled pairs
    # each took 2 s in all, and the signal could land as the interpreter exited (status -2).
    status, out, err = interrupt(["units", "sweep", "--units", "loa", "--param",
                                  "l=" + ",".join(str(l) for l in range(1, 17)),
                                  "--widths", "16", "--targets", "none", "--jobs", "2",
                                  "--db", str(database), "--json"], tmp_path / "marks", ready=database.exists,
                                 after=1.0)
    _assert_interrupted(status, err)
    assert out == '{"error": "interrupted", "status": 130}\n'
    connection = sqlite3.connect(database)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finished = connection.execute("SELECT count(*) FROM errors").fetchone()[0]
    finally:
        connection.close()
    assert finished < 16                         # interrupted, not finished
    assert sorted(p.name for p in tmp_path.iterdir()) == ["marks", "sweep.sqlite"]   # no journal left


def test_terminated_evaluation_stops_its_workers_quietly(tmp_path):
    # The workers ignore SIGTERM as they ignore Ctrl-C: the parent alone stops, and ends them.
    status, out, err = interrupt(["units", "eval", "mitchell", "--width", "16", "--exhaustive",
                                  "--workers", "2"], tmp_path / "marks", after=1.0, signum=signal.SIGTERM)
    _assert_interrupted(status, err, signal.SIGTERM)
    assert out == ""


def _wide_kernel(path: Path, statements: int) -> None:
    """A kernel whose one loop body is ``statements`` long: seconds of scheduling."""
    body = [f"        v = (v * {j % 7 + 3} + {j}) ^ (v >> {j % 5 + 1})" for j in range(statements)]
    path.write_text("\n".join([
        "import hls", "from amaranth import unsigned", "", "",
        "@hls.kernel",
        "def wide(a: hls.Array[unsigned(16), 64], n: unsigned(7)) -> unsigned(32):",
        "    s: unsigned(32) = 0",
        "    for i in range(n):",
        "        v = a[i]",
        *body,
        "        s = s + v",
        "    return s", ""]))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_interrupted_compile_leaves_no_folder(tmp_path, signum):
    source = tmp_path / "wide.py"
    _wide_kernel(source, 300)                    # about 10 s to compile
    work = tmp_path / "work"
    work.mkdir()
    status, out, err = interrupt(["compile", f"{source}:wide", "-o", str(work / "out")], tmp_path / "marks",
                                 after=1.5, signum=signum, group=signum == signal.SIGINT)
    _assert_interrupted(status, err, signum)
    assert out == "" and list(work.iterdir()) == []


#: Starts a worker inside interrupts_held() while a Ctrl-C arrives, then prints what happened.
POOL_LAUNCH = """
import os, signal, time
from approx_units import sweep
from approx_units.interrupts import interrupts_held

def state():
    both = (signal.SIGINT, signal.SIGTERM)
    return (os.getpid(), all(signal.getsignal(s) == signal.SIG_IGN for s in both),
            any(s in signal.pthread_sigmask(signal.SIG_BLOCK, []) for s in both))

pool = sweep.process_pool(1)
interrupted = False
try:
    with interrupts_held():
        future = pool.submit(state)              # forks the worker with SIGINT blocked
        os.kill(os.getpid(), signal.SIGINT)      # Ctrl-C during the launch: held back
    time.sleep(1)
except KeyboardInterrupt:
    interrupted = True
pid, ignored, blocked = future.result(timeout=30)
os.kill(pid, signal.SIGINT)                      # a worker shrugs it off
os.kill(pid, signal.SIGTERM)                     # and a SIGTERM too
survived = pool.submit(state).result(timeout=30)[0] == pid
pool.shutdown()
print(interrupted, ignored, blocked, survived)
"""


def test_pool_workers_ignore_sigint_and_sigterm_and_the_parent_gets_them_after_the_launch():
    result = subprocess.run([sys.executable, "-c", FOREGROUND + POOL_LAUNCH], cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert result.stdout.split() == ["True", "True", "False", "True"], result.stderr
    assert "Traceback" not in result.stderr, result.stderr


#: A pool of 1,024 short tasks, Ctrl-C at a random moment of each of 40 rounds.  Waited on with
#: concurrent.futures.wait() directly, this hung within 2 to 25 rounds in five runs: an interrupt
#: between two of the futures' lock acquisitions leaves the rest locked, and the shutdown waits
#: for workers blocked on them.
DEFERRED_ROUNDS = """
import os, random, signal, threading, time
from concurrent.futures import ThreadPoolExecutor
import artefacts
from approx_units import interrupts

random.seed(0)
rounds = interrupted = 0
for _ in range(40):
    pool = ThreadPoolExecutor(2)
    timer = threading.Timer(random.uniform(0.0, 0.2), os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        with artefacts.interrupts_deferred() as interrupt:
            try:
                futures = [pool.submit(time.sleep, 0.0005) for _ in range(1024)]
                for future in interrupts.as_completed(futures, interrupt):
                    future.result()
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
        timer.join()
    except KeyboardInterrupt:
        interrupted += 1
        timer.join()
    rounds += 1
print(rounds, interrupted)
"""


def test_a_deferred_interrupt_never_leaves_a_pool_waiting_for_ever():
    result = subprocess.run([sys.executable, "-c", FOREGROUND + DEFERRED_ROUNDS], cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    rounds, interrupted = map(int, result.stdout.split())
    assert (rounds, "Traceback" in result.stderr) == (40, False), result.stderr
    assert interrupted >= 30, result.stdout         # the interrupts did land inside the waits


@pytest.fixture
def python_sigint():
    """SIGINT with Python's own handler for the test, whatever the runner set (xdist ignores it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _interrupt_soon(seconds=0.1):
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_deferred_interrupt_is_raised_at_the_check_and_the_handler_restored(python_sigint):
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with artefacts.interrupts_deferred() as interrupt:
            _interrupt_soon(0.0).join()
            time.sleep(0.05)                     # the handler has run: no exception here
            reached.append(interrupt.requested)
            interrupt.check()
            reached.append("after the check")
    assert reached == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_deferred_interrupt_is_raised_when_the_block_ends_if_nobody_checked(python_sigint):
    with pytest.raises(KeyboardInterrupt):
        with artefacts.interrupts_deferred():
            _interrupt_soon(0.0).join()
            time.sleep(0.05)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_waiting_is_interrupted_with_no_future_left_locked(python_sigint):
    never, guard = Future(), Future()
    rescue = threading.Timer(10, guard.set_result, (None,))     # ends a wait that missed the interrupt
    rescue.start()
    timer = _interrupt_soon()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with artefacts.interrupts_deferred() as interrupt:
            interrupts.wait([never, guard], interrupt)
    timer.join()
    rescue.cancel()
    assert time.monotonic() - started < 0.1 + 2 * interrupts.POLL_SECONDS + 1.0
    finisher = threading.Thread(target=never.set_result, args=(1,))
    finisher.start()
    finisher.join(5)
    assert not finisher.is_alive() and never.result() == 1


def test_result_returns_a_value_and_is_interrupted_while_waiting(python_sigint):
    done = Future()
    done.set_result(7)
    with artefacts.interrupts_deferred() as interrupt:
        assert interrupts.result(done, interrupt) == 7
    late = Future()
    rescue = threading.Timer(10, late.set_result, (None,))      # ends a wait that missed the interrupt
    rescue.start()
    timer = _interrupt_soon()
    with pytest.raises(KeyboardInterrupt):
        with artefacts.interrupts_deferred() as interrupt:
            interrupts.result(late, interrupt)
    timer.join()
    rescue.cancel()


def test_a_nested_block_shares_the_outer_request(python_sigint):
    with pytest.raises(KeyboardInterrupt):
        with artefacts.interrupts_deferred() as outer:
            with artefacts.interrupts_deferred() as inner:
                assert inner is outer
            assert signal.getsignal(signal.SIGINT) == outer._record     # the inner block kept it
            _interrupt_soon(0.0).join()
            time.sleep(0.05)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_handler_of_the_users_gets_the_held_back_interrupt_when_the_block_ends(python_sigint):
    received = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: received.append(number))
    try:
        with artefacts.interrupts_deferred() as interrupt:
            _interrupt_soon(0.0).join()
            time.sleep(0.05)
            assert interrupt.requested and received == []       # held back in the block
        assert received == [signal.SIGINT]
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with artefacts.interrupts_deferred() as interrupt:      # ignored, as in a worker: left so
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            _interrupt_soon(0.0).join()
            time.sleep(0.05)
        assert not interrupt.requested
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_thread_inside_a_block_does_not_take_the_main_threads_request(python_sigint):
    seen = []

    def body():
        with artefacts.interrupts_deferred() as interrupt:
            seen.append(interrupt)

    with pytest.raises(KeyboardInterrupt):
        with artefacts.interrupts_deferred() as outer:
            _interrupt_soon(0.0).join()
            time.sleep(0.05)
            thread = threading.Thread(target=body)
            thread.start()
            thread.join()
            assert seen[0] is not outer and not seen[0].requested
            assert outer.requested                  # still the main thread's to deliver


def test_sigterm_is_held_back_like_ctrl_c_and_raised_as_terminated(python_sigint):
    before = signal.getsignal(signal.SIGTERM)
    reached = []
    with pytest.raises(artefacts.Terminated) as caught:
        with artefacts.terminate_as_interrupt():
            with artefacts.interrupts_deferred() as interrupt:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)                 # the handler has run: no exception here
                reached.append(interrupt.requested)
            reached.append("after the block")
    assert reached == [True]
    assert isinstance(caught.value, KeyboardInterrupt)          # every Ctrl-C clean-up runs for it
    assert artefacts.interrupt_outcome(caught.value) == ("terminated", 143)
    assert artefacts.interrupt_outcome(KeyboardInterrupt()) == ("interrupted", 130)
    assert signal.getsignal(signal.SIGTERM) is before


class _SignalledInFinaliser:
    """Sends ``signum`` to this process from its ``__del__``, whose handler then raises there."""

    def __init__(self, signum):
        self.signum = signum

    def __del__(self):
        signal.raise_signal(self.signum)
        sum(range(1000))                         # the handler runs, and raises, inside __del__


def _interrupted_after_a_finaliser(signum) -> KeyboardInterrupt:
    """The exception a command gets when ``signum``'s handler first raises inside a finaliser:
    it must come after the finaliser, within 5 s (the resend), and not be lost."""
    reached = []
    with pytest.raises(KeyboardInterrupt) as caught:
        with artefacts.terminate_as_interrupt():
            finalised = _SignalledInFinaliser(signum)
            del finalised
            reached.append("after the finaliser")
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                time.sleep(0.01)
            reached.append("never interrupted")
    assert reached == ["after the finaliser"]
    return caught.value


@pytest.mark.parametrize("signum, raised", [(signal.SIGINT, KeyboardInterrupt),
                                            (signal.SIGTERM, artefacts.Terminated)])
def test_an_interrupt_swallowed_by_a_finaliser_is_sent_again(python_sigint, capsys, signum, raised):
    # Amaranth's unused-element check runs in __del__: a Ctrl-C landing there was printed as
    # "Exception ignored" and lost, and the command ran to its end.
    assert type(_interrupted_after_a_finaliser(signum)) is raised
    assert "Exception ignored" not in capsys.readouterr().err


def test_a_resend_that_lands_inside_the_hook_is_sent_once_more(python_sigint, capsys, monkeypatch):
    # On a loaded machine the timer can fire while the main thread is still starting it, inside
    # the hook, where the handler's exception would be lost too: the first timer here does that.
    real_timer = threading.Timer
    landed_early = []

    class EarlyTimer(real_timer):
        def start(self):
            if not landed_early:
                landed_early.append(True)
                signal.raise_signal(signal.SIGINT)
                sum(range(1000))                 # the handler raises here, inside the hook
            super().start()
    monkeypatch.setattr(threading, "Timer", EarlyTimer)
    assert type(_interrupted_after_a_finaliser(signal.SIGINT)) is KeyboardInterrupt
    assert landed_early == [True]
    assert "Exception ignored" not in capsys.readouterr().err


def test_other_unraisable_exceptions_still_reach_the_previous_hook(python_sigint):
    seen = []
    previous = sys.unraisablehook
    recording = lambda unraisable: seen.append(type(unraisable.exc_value))     # noqa: E731
    sys.unraisablehook = recording
    try:
        class Failing:
            def __del__(self):
                raise ValueError("in a finaliser")
        with artefacts.terminate_as_interrupt():
            failing = Failing()
            del failing
        assert seen == [ValueError]
        assert sys.unraisablehook is recording             # put back when the block ends
    finally:
        sys.unraisablehook = previous


def test_outside_terminate_as_interrupt_sigterm_is_not_held_back(python_sigint):
    # Its default action ends the process: nothing to hold, and nothing is installed for it.
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with artefacts.interrupts_deferred():
            assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_outside_the_main_thread_the_handler_is_left_alone(python_sigint):
    seen = []

    def body():
        with artefacts.interrupts_deferred() as interrupt:
            seen.append((interrupt.requested, signal.getsignal(signal.SIGINT)))

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert seen == [(False, signal.default_int_handler)]


LONG_LOOP = """
import hls
from amaranth import unsigned


@hls.kernel
def count(n: unsigned(16)) -> unsigned(32):
    s: unsigned(32) = 0
    for i in range(n):
        s = s + i
    return s
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_interrupted_sim_leaves_no_waveform(tmp_path, signum):
    source = tmp_path / "count.py"
    source.write_text(LONG_LOOP)
    arguments = tmp_path / "args.json"
    arguments.write_text('{"n": 60000}')                 # some 60,000 cycles: several seconds
    waves = tmp_path / "waves"
    waves.mkdir()
    started = lambda: any(path.name.endswith(".tmp") for path in waves.iterdir())
    status, out, err = interrupt(["sim", f"{source}:count", "--args", str(arguments),
                                  "--vcd", str(waves / "count.vcd")], tmp_path / "marks",
                                 ready=started, after=0.5, signum=signum)
    _assert_interrupted(status, err, signum)
    assert out == "" and list(waves.iterdir()) == []     # no truncated VCD, no temporary
