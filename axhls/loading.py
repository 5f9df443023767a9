"""Loading what the command line names: ``FILE.py:KERNEL`` specs and JSON argument files.

Every failure is a one-line :class:`axhls.command.CommandError`: status 2 for bad
input, 1 for a run that failed on the given arguments.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import sys
import traceback

from hls.errors import KernelLoopLimit, KernelRuntimeError, KernelSyntaxError
from hls.dataflow import Dataflow
from hls.kernel import Function, Kernel

from .command import CommandError

__all__ = ["user_errors", "load_kernel", "import_file", "load_args", "load_json"]


@contextlib.contextmanager
def user_errors(loop_limit_option: str | None = None):
    """Turn kernel errors into one-line :class:`axhls.command.CommandError` for the command line.

    :class:`~hls.errors.KernelSyntaxError` exits with status 2 (bad input);
    :class:`~hls.errors.KernelRuntimeError` with status 1 (the run failed, for
    example an index out of range for the given arguments). A run stopped by its
    loop bound (:class:`~hls.errors.KernelLoopLimit`) names ``loop_limit_option``,
    the command's option that set the bound.
    """
    try:
        yield
    except KernelSyntaxError as error:
        raise CommandError(str(error), 2) from None
    except KernelLoopLimit as error:
        raise CommandError(f"{error} (the limit set by {loop_limit_option} {error.limit})", 1) from None
    except KernelRuntimeError as error:
        raise CommandError(str(error), 1) from None


def load_kernel(spec: str, *, chains: bool = False):
    """The kernel named by ``FILE.py:KERNEL``, imported by path and checked; with ``chains``,
    an ``@hls.dataflow`` chain may be named too.

    The kernel (or chain) is analysed before it is returned, so a construct outside the
    language is reported here as ``file:line:col: message (hint: ...)``.

    Raises
    ------
    axhls.command.CommandError
        One line, status 2: malformed spec, missing file, import failure, no
        kernel of that name, or a kernel outside the language.
    """
    path, colon, name = spec.rpartition(":")
    if not colon or not path or not name:
        raise CommandError(f"{spec}: expected FILE.py:KERNEL")
    module = import_file(path)
    found = getattr(module, name, None)
    accepted = (Kernel, Dataflow) if chains else Kernel
    if found is None:
        kernels = sorted(key for key, value in vars(module).items() if isinstance(value, accepted))
        raise CommandError(f"{path}: no kernel named {name!r} "
                           f"(kernels in this file: {', '.join(kernels) or 'none'})")
    if not isinstance(found, accepted):
        raise CommandError(f"{path}: {name!r} is not an @hls.kernel{' or an @hls.dataflow chain' if chains else ''}")
    with user_errors():
        found.analyze()
    return found


def import_file(path: str):
    """Import the Python file ``path`` as a module, with its directory on ``sys.path``
    while it runs (so it can import its neighbours, as ``python FILE.py`` would).

    While it runs, ``sys.argv`` is ``[path]``, not the command line of ``axhls``, and what
    it prints is held back: shown afterwards when the import succeeds, dropped when it
    fails, so that a file whose unguarded script code parses arguments or calls
    ``sys.exit`` ends in one line naming the file, not in its own usage text.

    Raises
    ------
    axhls.command.CommandError
        One line, status 2: missing file, syntax error, an exception while importing,
        or a ``sys.exit`` (an ``argparse`` error, say) while importing.
    """
    if not os.path.isfile(path):
        raise CommandError(f"{path}: no such file")
    module_name = "_axhls_user_" + "".join(c if c.isalnum() else "_" for c in os.path.abspath(path))
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise CommandError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    directory = os.path.dirname(os.path.abspath(path))
    added = directory not in sys.path
    if added:
        sys.path.insert(0, directory)
    sys.modules[module_name] = module
    printed, argv = (io.StringIO(), io.StringIO()), sys.argv
    sys.argv = [path]
    try:
        with contextlib.redirect_stdout(printed[0]), contextlib.redirect_stderr(printed[1]):
            module_spec.loader.exec_module(module)
    except SystemExit as error:
        sys.modules.pop(module_name, None)
        said = " ".join(printed[1].getvalue().split())
        said = f" after printing {said[:120]!r}" if said else ""
        raise CommandError(f"{_where(error, path)}: importing it called sys.exit({error.code!r}){said}; guard the file's "
                           f"script code with `if __name__ == \"__main__\":`") from None
    except SyntaxError as error:
        sys.modules.pop(module_name, None)
        # The file as the user named it; a neighbour it imports by its own name.
        named = error.filename is None or os.path.abspath(error.filename) == os.path.abspath(path)
        raise CommandError(f"{path if named else error.filename}:{error.lineno}:{error.offset or 0}: "
                           f"{error.msg}") from None
    except Exception as error:
        sys.modules.pop(module_name, None)
        message = " ".join(str(error).splitlines())
        raise CommandError(f"{_where(error, path)}: importing it failed: {type(error).__name__}: {message}") from None
    except BaseException:       # Ctrl-C: what the file printed is part of what happened
        _replay(printed)
        raise
    finally:
        sys.argv = argv
        if added:
            sys.path.remove(directory)
    _replay(printed)
    return module


def _where(error: BaseException, path: str) -> str:
    """``path:line`` of the user's last line in ``error``'s traceback (for example a bad
    ``hls.Array`` annotation, evaluated at import), or ``path``."""
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
             if os.path.abspath(frame.filename) == os.path.abspath(path)]
    return f"{path}:{lines[-1]}" if lines else path


def _replay(printed: tuple) -> None:
    sys.stdout.write(printed[0].getvalue())
    sys.stderr.write(printed[1].getvalue())


def load_json(path: str, named: str | None = None):
    """The JSON value in the file ``path``; ``named`` is how messages name it (``path`` by default).

    Raises
    ------
    axhls.command.CommandError
        One line, status 2: missing or unreadable file, bad JSON (with its line and column).
    """
    named = path if named is None else named
    try:
        with open(path) as file:
            return json.load(file)
    except FileNotFoundError:
        raise CommandError(f"{named}: no such file") from None
    except json.JSONDecodeError as error:
        raise CommandError(f"{named}:{error.lineno}:{error.colno}: bad JSON: {error.msg}") from None
    except OSError as error:
        raise CommandError(f"{named}: {error.strerror}") from None


def load_args(path: str, kernel: Function | Dataflow) -> dict:
    """The arguments in the JSON file ``path``, checked against the parameters of ``kernel``
    (a kernel or an ``@hls.dataflow`` chain).

    The file holds one object mapping each parameter name to an integer
    (scalars) or a list of integers (arrays, exactly ``depth`` elements).

    Raises
    ------
    axhls.command.CommandError
        One line, status 2: missing file, bad JSON, or arguments not matching
        the parameters.
    hls.errors.KernelSyntaxError
        If the kernel itself is outside the language (its parameters cannot be known).
    """
    if not path:
        raise CommandError("--args: an empty path; expected ARGS.json")
    data = load_json(path)
    if not isinstance(data, dict):
        raise CommandError(f"{path}: expected a JSON object mapping parameter names to values")
    with user_errors():
        model = kernel.golden_model()
    for param in kernel.params:
        # An output stream's list may be left out: the run fills it.
        if param.kind == "stream" and param.direction == "out":
            data.setdefault(param.name, [])
    try:
        return model.bind((), data)
    except (TypeError, ValueError) as error:
        raise CommandError(f"{path}: {error}") from None
