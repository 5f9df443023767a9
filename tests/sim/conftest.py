import sys
from pathlib import Path

import pytest

# handmade.py and sim_helpers.py are imported by the tests of this directory.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _private_build_cache(tmp_path_factory, monkeypatch):
    """Builds go to one cache per test session, not the user's ~/.cache."""
    monkeypatch.setenv("AXHLS_SIM_CACHE", str(tmp_path_factory.getbasetemp() / "cocotb-cache"))
