"""Helpers shared by the tests of sim/ (a unique module name: other test directories have a conftest too)."""

import pytest

from sim.errors import ToolUnavailable
from sim.tools import find_simulator


def require_simulator(name: str):
    """Skip the calling test, with the tool's own one-line message, if ``name`` is unavailable."""
    try:
        return find_simulator(name)
    except ToolUnavailable as error:
        pytest.skip(str(error))
