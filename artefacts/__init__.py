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
* **Ctrl-C leaves nothing behind**: temporary files and staging folders are
  removed on any exception, ``KeyboardInterrupt`` included.

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
import tempfile
import threading
from pathlib import Path
from typing import Iterator

__all__ = ["DestinationError", "json_safe", "FILE_MODE", "DIRECTORY_MODE", "check_file_destination",
           "check_directory_destination", "write_text", "write_bytes", "atomic_path", "output_directory",
           "OutputDirectory", "interrupts_deferred", "DeferredInterrupt"]

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


class DeferredInterrupt:
    """A Ctrl-C held back by :func:`interrupts_deferred`, to be delivered where it is safe.

    Attributes
    ----------
    requested : bool
        Whether SIGINT arrived in the block and has not been delivered yet.
    """

    def __init__(self, handler=signal.default_int_handler):
        self.requested = False
        self._handler = handler

    def _record(self, signum, frame):
        # A signal handler runs between two bytecodes of the main thread, possibly inside a
        # lock's critical section: it must not take a lock itself, so it only sets a flag.
        self.requested = True

    def check(self) -> None:
        """Deliver a held-back Ctrl-C now: raise ``KeyboardInterrupt``, or call the handler it displaced."""
        if self.requested:
            self.requested = False
            self._handler(signal.SIGINT, None)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[DeferredInterrupt]:
    """Hold back Ctrl-C (SIGINT) until the block ends or checks, then deliver it.

    Within the block, SIGINT only sets :attr:`DeferredInterrupt.requested` of the
    object yielded; its :meth:`~DeferredInterrupt.check` delivers it where the
    block chooses (Python's default handler raises ``KeyboardInterrupt``), and
    the end of the block delivers it if nobody did.  Used around the few renames
    that put a set of outputs in place, so that an interrupt cannot leave half of
    them old and half new, and around waits on a pool of workers
    (:mod:`approx_units.interrupts`), where an exception inside
    :mod:`concurrent.futures` can leave a lock held.

    A block inside another shares the enclosing block's request.  Outside the main
    thread (where Python delivers no signal), or where SIGINT is ignored (as in a
    worker process) or has the system's default action, nothing is held back.
    """
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous) or threading.current_thread() is not threading.main_thread():
        # Not the enclosing block's request either: a worker thread must not take the main
        # thread's Ctrl-C away from it.
        yield DeferredInterrupt()
        return
    enclosing = getattr(previous, "__self__", None)
    if isinstance(enclosing, DeferredInterrupt):
        yield enclosing
        enclosing.check()
        return
    request = DeferredInterrupt(previous)
    signal.signal(signal.SIGINT, request._record)
    try:
        yield request
    finally:
        signal.signal(signal.SIGINT, previous)
    request.check()


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, *, check: bool = True) -> Iterator[Path]:
    """A temporary path beside ``path`` that becomes ``path`` when the block succeeds.

    For writers that want a file name rather than text (``savefig``, a VCD
    writer, SQLite): write to the yielded path; on success it is given
    :data:`FILE_MODE` and renamed over ``path``; on any exception, Ctrl-C
    included, it is removed and ``path`` is left as it was.

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
            self.staging = Path(tempfile.mkdtemp(dir=stage_in, prefix=f".{self.destination.name}."))
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
    (:meth:`OutputDirectory.commit`), on any exception (Ctrl-C included) they
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
