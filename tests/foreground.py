"""Child processes that take Ctrl-C as a terminal's foreground job does.

A test runner started in the background of a shell (``pytest ... &``, or a CI
harness that runs it so) ignores SIGINT, and every child inherits that: Python
then installs no ``KeyboardInterrupt`` handler, and a test that sends SIGINT to
``axhls`` sees the command run to its end with status 0.  Each child that a test
interrupts therefore starts by putting Python's own handler back.
"""

import sys

#: First line of a ``python -c`` child: Python's own SIGINT handler.
FOREGROUND = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"


def axhls_command(*argv: str) -> list[str]:
    """``python -m axhls ARGV...``, run with Python's own SIGINT handler (see the module's docstring)."""
    return [sys.executable, "-c", FOREGROUND + "import runpy; runpy.run_module('axhls', run_name='__main__', "
            "alter_sys=True)", *argv]
