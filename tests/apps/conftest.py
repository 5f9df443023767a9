import pytest


@pytest.fixture(autouse=True)
def _private_build_cache(tmp_path_factory, monkeypatch):
    """Cocotb builds go to one cache per test session, not the user's ~/.cache."""
    monkeypatch.setenv("AXHLS_SIM_CACHE", str(tmp_path_factory.getbasetemp() / "cocotb-cache"))
