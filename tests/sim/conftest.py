import sys
from pathlib import Path

import pytest

from sim.tools import ToolUnavailable, find_simulator

# handmade.py and the regression tests import helpers from this directory.
sys.path.insert(0, str(Path(__file__).parent))


def require_simulator(name: str):
    """Skip the calling test, with the tool's own one-line message, if ``name`` is unavailable."""
    try:
        return find_simulator(name)
    except ToolUnavailable as error:
        pytest.skip(str(error))


@pytest.fixture(autouse=True)
def _private_build_cache(tmp_path_factory, monkeypatch):
    """Builds go to one cache per test session, not the user's ~/.cache."""
    monkeypatch.setenv("AXHLS_SIM_CACHE", str(tmp_path_factory.getbasetemp() / "cocotb-cache"))
