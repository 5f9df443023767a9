"""Every script under benchmarks/ and examples/ at least compiles.

Most benchmark scripts are run by hand, not by the suite (they place and route for minutes), so a
syntax error in one would otherwise show only when someone next measures with it.
"""

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = sorted(path for folder in ("benchmarks", "examples") for path in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=[str(path.relative_to(ROOT)) for path in SCRIPTS])
def test_the_script_compiles(path):
    compile(path.read_text(), str(path), "exec")
