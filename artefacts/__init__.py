"""The one way axhls writes a file: checked first, written atomically, never half there.

Every file the project writes (Verilog, reports, port lists, waveforms,
plots, the unit catalog, the synthesis cache, the sweep database) goes through
this module, so that all of them behave alike:

* **Destinations are checked before the work starts.**
  :func:`check_file_destination` and :func:`check_directory_destination` try
  the destination the way the real write will (they create and remove a probe
  file in the folder), so an unwritable place, a file where a folder is
  expected or a folder where a file is expected is reported, naming the
  user's path, before minutes of synthesis or simulation are spent.
* **Writes are atomic.** A file is written to a temporary name in its
  destination's folder and renamed over the destination, so a reader sees the
  old file or the new one, never a mixture; outputs get mode 0644.
* **A folder of outputs appears whole** (:func:`output_directory`): the files
  are built in a staging folder beside the destination, then the folder is
  renamed into place (or, when the destination already exists, its files are
  replaced one by one in the order they were written, with Ctrl-C held back
  until the last one is in, so a ``catalog.json`` written last lands last).
* **Ctrl-C and SIGTERM leave nothing behind**: temporary files and staging
  folders are removed on any exception, ``KeyboardInterrupt`` included; inside
  :func:`terminate_as_interrupt` (the command line runs in it) SIGTERM raises
  :class:`Terminated`, a ``KeyboardInterrupt``, so that it takes the same path.

Errors are :class:`DestinationError`, a ``ValueError`` whose message is one
line that starts with the path as the user wrote it.

This package imports nothing of the project's, so every library can use it.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Iterator

__all__ = ["DestinationError", "json_safe", "FILE_MODE", "DIRECTORY_MODE", "check_file_destination",
           "check_directory_destination", "write_text", "write_bytes", "write_figure", "check_figure_destination",
           "FIGURE_FORMATS",
           "atomic_path", "output_directory",
           "OutputDirectory", "interrupts_deferred", "DeferredInterrupt", "Terminated",
           "terminate_as_interrupt", "INTERRUPT_SIGNALS", "interrupt_outcome"]

#: Mode of every file the project writes.
FILE_MODE = 0o644
#: Mode of every folder the project creates.
DIRECTORY_MODE = 0o755


class DestinationError(ValueError):
    """A destination that cannot receive an output.

    The message is one line starting with the path as the user gave it, for
    example ``"/proc/x.v: cannot write there: No such file or directory"``.

    Attributes
    ----------
    path : str
        The destination, as given.
    """

    def __init__(self, path: str | os.PathLike, problem: str):
        self.path = os.fspath(path)
        super().__init__(f"{self.path or repr(self.path)}: {problem}")


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _probe_folder(folder: Path, shown: str | os.PathLike) -> None:
    """Create and remove a file in ``folder``: the test the real write will face."""
    try:
        descriptor, probe = tempfile.mkstemp(dir=folder, prefix=".axhls-probe-")
    except OSError as error:
        raise DestinationError(shown, f"cannot write there: {_reason(error)}") from None
    os.close(descriptor)
    os.unlink(probe)


def check_file_destination(path: str | os.PathLike) -> Path:
    """Check that a file can be written at ``path`` and return it as a :class:`~pathlib.Path`.

    Parameters
    ----------
    path : str or os.PathLike
        Where a file will be written; its folder must exist.

    Raises
    ------
    DestinationError
        ``path`` is a folder, its folder does not exist or is not a folder,
        or nothing can be created there.
    """
    if not os.fspath(path):
        # Path("") is the current folder: an empty name would quietly mean "here".
        raise DestinationError(path, "an empty path; expected a file name")
    target = Path(path)
    if target.is_dir():
        raise DestinationError(path, "is a directory; expected a file name")
    folder = target.parent
    if not folder.exists():
        raise DestinationError(path, f"directory {os.fspath(folder)} does not exist")
    if not folder.is_dir():
        raise DestinationError(path, f"{os.fspath(folder)} is not a directory")
    _probe_folder(folder, path)
    return target


def check_directory_destination(path: str | os.PathLike) -> Path:
    """Check that a folder of outputs can be made (or updated) at ``path``.

    The folder itself may be missing (it is created, with its missing
    parents); what exists of it must be folders that can be written.

    Raises
    ------
    DestinationError
        ``path`` (or one of its parents) is a file, or nothing can be created there.
    """
    if not os.fspath(path):
        raise DestinationError(path, "an empty path; expected a directory name")
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise DestinationError(path, "exists and is not a directory")
    existing = target
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        raise DestinationError(path, f"{os.fspath(existing)} is not a directory")
    _probe_folder(existing, path)
    return target


#: The signals that stop a command: Ctrl-C (SIGINT) and a batch system's or ``timeout``'s SIGTERM.
INTERRUPT_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised inside :func:`terminate_as_interrupt`.

    A ``KeyboardInterrupt``, so that every clean-up written for Ctrl-C (the
    temporary files of :func:`atomic_path`, the staging folder of
    :func:`output_directory`, a half-finished pool) runs for SIGTERM as well;
    only the message and the exit status differ (:func:`interrupt_outcome`).
    """


def _raise_terminated(signum, frame):
    raise Terminated()


def interrupt_outcome(interrupt: KeyboardInterrupt) -> tuple[str, int]:
    """What a program stopped by ``interrupt`` says, and its exit status (128 + the signal's number).

    ``("interrupted", 130)`` for Ctrl-C (SIGINT), ``("terminated", 143)`` for SIGTERM
    (:class:`Terminated`), the statuses a shell reports for the two signals.
    """
    if isinstance(interrupt, Terminated):
        return "terminated", 128 + signal.SIGTERM
    return "interrupted", 128 + signal.SIGINT


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` instead of killing the process at once.

    The one place where SIGTERM becomes an exception: the command line runs
    inside it, so that a SIGTERM cleans up as a Ctrl-C does.  Outside the main
    thread (where Python delivers no signal), or where SIGTERM is ignored (as in
    a worker process), nothing changes; the previous handler comes back when the
    block ends.
    """
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _redeliver_lost_interrupt(previous_hook)
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        signal.signal(signal.SIGTERM, previous)


def _redeliver_lost_interrupt(previous_hook):
    """An ``unraisablehook`` that sends a swallowed Ctrl-C or SIGTERM again.

    Python runs a signal's handler between two bytecodes of the main thread, which may be
    inside a ``__del__`` or a weak-reference callback (Amaranth's unused-element check runs
    in ``__del__`` after every elaboration).  An exception raised there cannot propagate:
    Python prints "Exception ignored in ..." and goes on, so the command would run to its
    end.  This hook has the signal sent to the main thread again a moment later instead;
    once its handler runs outside a finaliser, the exception reaches the command.

    The signal is sent from a timer thread, so that it normally arrives after the hook has
    returned.  On a loaded machine the main thread may still be inside the hook when it
    arrives (starting the timer waits for the new thread): the exception is then raised here,
    where it would be lost as well, so the hook catches it and sends the signal once more.
    It is a real signal (``pthread_kill``), not ``_thread.interrupt_main``, so that it also
    ends a wait in a system call, such as a synthesis tool's ``waitpid``.
    """
    main = threading.main_thread().ident

    def hook(unraisable):
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous_hook(unraisable)
            return
        signum = signal.SIGTERM if isinstance(unraisable.exc_value, Terminated) else signal.SIGINT
        while True:
            try:
                resend = threading.Timer(0.01, _send_if_handled, (main, signum))
                resend.daemon = True
                resend.start()
                return
            except KeyboardInterrupt as interrupt:
                signum = signal.SIGTERM if isinstance(interrupt, Terminated) else signal.SIGINT
    return hook


def _send_if_handled(thread: int, signum: int) -> None:
    # Once the block that installed the handlers has ended, SIGTERM has its default action
    # again, which would kill the process rather than raise: such a late signal is dropped.
    if callable(signal.getsignal(signum)):
        signal.pthread_kill(thread, signum)


class DeferredInterrupt:
    """A Ctrl-C or SIGTERM held back by :func:`interrupts_deferred`, to be delivered where it is safe.

    Attributes
    ----------
    requested : bool
        Whether a signal of :data:`INTERRUPT_SIGNALS` arrived in the block and has
        not been delivered yet.
    """

    def __init__(self, handlers=None):
        self.requested = False
        self._signal = None
        # The handler each held-back signal displaced, which delivers it.
        self._handlers = handlers if handlers is not None else {signal.SIGINT: signal.default_int_handler}

    def _record(self, signum, frame):
        # A signal handler runs between two bytecodes of the main thread, possibly inside a
        # lock's critical section: it must not take a lock itself, so it only sets a flag.
        # The first signal is the one delivered: a SIGTERM after a Ctrl-C does not change it.
        if not self.requested:
            self._signal = signum
        self.requested = True

    def check(self) -> None:
        """Deliver a held-back signal now: raise ``KeyboardInterrupt`` (:class:`Terminated` for a
        SIGTERM inside :func:`terminate_as_interrupt`), or call the handler it displaced."""
        if self.requested:
            self.requested = False
            self._handlers[self._signal](self._signal, None)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[DeferredInterrupt]:
    """Hold back Ctrl-C (SIGINT) and SIGTERM until the block ends or checks, then deliver it.

    Within the block, either signal only sets :attr:`DeferredInterrupt.requested` of
    the object yielded; its :meth:`~DeferredInterrupt.check` delivers it where the
    block chooses (Python's default SIGINT handler raises ``KeyboardInterrupt``,
    :func:`terminate_as_interrupt`'s SIGTERM handler :class:`Terminated`), and
    the end of the block delivers it if nobody did.  Used around the few renames
    that put a set of outputs in place, so that an interrupt cannot leave half of
    them old and half new, and around waits on a pool of workers
    (:mod:`approx_units.interrupts`), where an exception inside
    :mod:`concurrent.futures` can leave a lock held.

    A block inside another shares the enclosing block's request.  Outside the main
    thread (where Python delivers no signal), nothing is held back; nor is a signal
    that is ignored (as in a worker process) or has the system's default action
    (SIGTERM outside :func:`terminate_as_interrupt` ends the process at once).
    """
    if threading.current_thread() is not threading.main_thread():
        # Not the enclosing block's request either: a worker thread must not take the main
        # thread's Ctrl-C away from it.
        yield DeferredInterrupt()
        return
    previous = {signum: signal.getsignal(signum) for signum in INTERRUPT_SIGNALS}
    enclosing = next((handler.__self__ for handler in previous.values()
                      if isinstance(getattr(handler, "__self__", None), DeferredInterrupt)), None)
    if enclosing is not None:
        yield enclosing
        enclosing.check()
        return
    held = {signum: handler for signum, handler in previous.items() if callable(handler)}
    request = DeferredInterrupt(held)
    for signum in held:
        signal.signal(signum, request._record)
    try:
        yield request
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)
    request.check()


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, *, check: bool = True) -> Iterator[Path]:
    """A temporary path beside ``path`` that becomes ``path`` when the block succeeds.

    For writers that want a file name rather than text (``savefig``, a VCD
    writer, SQLite): write to the yielded path; on success it is given
    :data:`FILE_MODE` and renamed over ``path``; on any exception, Ctrl-C
    included (and SIGTERM inside :func:`terminate_as_interrupt`), it is removed
    and ``path`` is left as it was.

    Parameters
    ----------
    path : str or os.PathLike
    check : bool
        Check the destination first (:func:`check_file_destination`).

    Raises
    ------
    DestinationError
        The destination cannot be written.
    """
    target = check_file_destination(path) if check else Path(path)
    try:
        descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                                 suffix=".tmp")
    except OSError as error:
        raise DestinationError(path, f"cannot write there: {_reason(error)}") from None
    os.close(descriptor)
    temporary = Path(temporary)
    try:
        yield temporary
        os.chmod(temporary, FILE_MODE)
        try:
            os.replace(temporary, target)
        except OSError as error:
            raise DestinationError(path, f"cannot write there: {_reason(error)}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def write_bytes(path: str | os.PathLike, data: bytes, *, check: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`) and return the path.

    Raises
    ------
    DestinationError
        The destination cannot be written, or the write failed (disk full).
    """
    with atomic_path(path, check=check) as temporary:
        try:
            with open(temporary, "wb") as file:
                file.write(data)
        except OSError as error:
            raise DestinationError(path, f"cannot write it: {_reason(error)}") from None
    return Path(path)


def write_text(path: str | os.PathLike, text: str, *, check: bool = True) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically and return the path.

    Raises
    ------
    DestinationError
        The destination cannot be written, or the write failed (disk full).
    """
    return write_bytes(path, text.encode("utf-8"), check=check)


#: The formats :func:`write_figure` writes, and the metadata each needs cleared to be byte-identical
#: between runs (matplotlib stamps its version, and a PDF its creation date).
FIGURE_FORMATS = {"png": {"Software": None},
                  "svg": {"Date": None, "Creator": None},
                  "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}


def check_figure_destination(path: str | os.PathLike) -> str:
    """Check ``path`` as :func:`check_file_destination` does, and that its suffix names a format of
    :data:`FIGURE_FORMATS`; return that format.

    Raises
    ------
    DestinationError
        The destination cannot be written, or its suffix names no format written here.
    """
    suffix = Path(path).suffix.lstrip(".").lower()
    if suffix not in FIGURE_FORMATS:
        raise DestinationError(path, f"a plot is written as {', '.join('.' + name for name in FIGURE_FORMATS)}, "
                                     f"not {'.' + suffix if suffix else 'a name without a suffix'}")
    check_file_destination(path)
    return suffix


def write_figure(path: str | os.PathLike, figure, *, dpi: int = 120) -> Path:
    """Save a matplotlib ``figure`` to ``path`` atomically, in the format its suffix names
    (:data:`FIGURE_FORMATS`), byte-identical for the same figure: the tool version and dates
    are left out, and an SVG's element ids come from a fixed salt.

    Raises
    ------
    DestinationError
        The destination cannot be written, or its suffix names no format written here
        (:func:`check_figure_destination`, called first).
    """
    suffix = check_figure_destination(path)
    # matplotlib is the caller's: a figure was drawn with it, so it is imported already.
    import matplotlib
    with atomic_path(path, check=False) as temporary, matplotlib.rc_context({"svg.hashsalt": "axhls"}):
        figure.savefig(temporary, format=suffix, dpi=dpi, metadata=FIGURE_FORMATS[suffix])
    return Path(path)


class OutputDirectory:
    """A folder of outputs being built; see :func:`output_directory`.

    Attributes
    ----------
    destination : pathlib.Path
        The folder the outputs are for.
    staging : pathlib.Path
        Where they are written until :meth:`commit`.
    """

    def __init__(self, destination: str | os.PathLike):
        self.shown = os.fspath(destination)
        self.destination = check_directory_destination(destination)
        existing = self.destination
        while not existing.exists():
            existing = existing.parent
        parent = self.destination.parent
        # The staging folder must be on the destination's file system for the renames.
        stage_in = parent if parent.exists() else existing
        try:
            # Named so that one .gitignore pattern covers every staging folder (.*.staging-*/).
            self.staging = Path(tempfile.mkdtemp(dir=stage_in, prefix=f".{self.destination.name}.staging-"))
        except OSError as error:
            raise DestinationError(self.shown, f"cannot write there: {_reason(error)}") from None
        self._written: list[str] = []
        self._removed: list[str] = []
        self._open = True

    def path(self, name: str) -> Path:
        """The staging path of output ``name`` (a plain file name), for writers that want a path."""
        if os.sep in name or name in ("", ".", ".."):
            raise ValueError(f"output names are plain file names, not {name!r}")
        if name in self._written:
            self._written.remove(name)
        self._written.append(name)
        return self.staging / name

    def write_text(self, name: str, text: str) -> None:
        self.write_bytes(name, text.encode("utf-8"))

    def write_bytes(self, name: str, data: bytes) -> None:
        target = self.path(name)
        try:
            with open(target, "wb") as file:
                file.write(data)
        except OSError as error:
            raise DestinationError(self.shown, f"cannot write {name}: {_reason(error)}") from None

    def remove(self, name: str) -> None:
        """Remove the existing output ``name`` from the destination when the folder is committed."""
        self._removed.append(name)

    @property
    def written(self) -> list[str]:
        """Names written so far, in the order they will be put in place."""
        return list(self._written)

    def commit(self) -> None:
        """Put the outputs in place: rename the whole folder, or replace its files in order."""
        if not self._open:
            return
        with interrupts_deferred():
            for name in self._written:
                os.chmod(self.staging / name, FILE_MODE)
            try:
                if not self.destination.exists():
                    self.destination.parent.mkdir(parents=True, exist_ok=True, mode=DIRECTORY_MODE)
                    os.chmod(self.staging, DIRECTORY_MODE)
                    os.rename(self.staging, self.destination)
                else:
                    for name in self._written:
                        os.replace(self.staging / name, self.destination / name)
                    for name in self._removed:
                        if name not in self._written:
                            with contextlib.suppress(FileNotFoundError):
                                (self.destination / name).unlink()
            except OSError as error:
                raise DestinationError(self.shown, f"cannot write there: {_reason(error)}") from None
            finally:
                self._open = False
                shutil.rmtree(self.staging, ignore_errors=True)

    def abort(self) -> None:
        """Drop everything written; the destination stays as it was."""
        self._open = False
        shutil.rmtree(self.staging, ignore_errors=True)


@contextlib.contextmanager
def output_directory(path: str | os.PathLike) -> Iterator[OutputDirectory]:
    """Build a folder of outputs that appears whole or not at all.

    Example
    -------
    ::

        with artefacts.output_directory("out") as out:
            out.write_text("kernel.v", verilog)
            out.write_text("kernel.report.json", report)

    The folder is checked when the block starts; the outputs go to a staging
    folder beside it; when the block ends normally they are put in place
    (:meth:`OutputDirectory.commit`), on any exception (Ctrl-C and SIGTERM included) they
    are dropped and the destination is left as it was.

    Raises
    ------
    DestinationError
        The folder cannot be made or written.
    """
    directory = OutputDirectory(path)
    try:
        yield directory
    except BaseException:
        directory.abort()
        raise
    directory.commit()


def json_safe(value):
    """A copy of ``value`` that ``json.dumps(..., allow_nan=False)`` accepts, for JSON outputs.

    NaN and infinities become ``None`` (JSON has no such numbers), numpy scalars
    plain Python numbers, tuples lists and dictionary keys strings.
    """
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
