"""The exploration's plot (:mod:`hls.explore.plot`, ``axhls explore --plot``): quality against ADP, the
uniform configurations beside the front, at measured ADP where verified; byte-identical files."""

import copy
import math

import numpy as np
import pytest

import artefacts
import explore_kernels as kernels
import hls.explore as explore
import sim
from approx_units import synth
from hls.explore.plot import draw, plot

CANDIDATES = "mul=drum(k=3),mitchell"


def _simulate(kernel, args):
    return sim.run(kernel, copy.deepcopy(args), golden="python")


def _explore(cache):
    return explore.explore(kernels.CHAIN, kernels.chain_data(), kernels.chain_quality, run=kernels.chain_run,
                           bound="mae<=2000", candidates=CANDIDATES, evaluations=9, population=4, cache=cache)


@pytest.fixture(scope="module")
def cache():
    return synth.ResultCache()


@pytest.fixture(scope="module")
def result(cache):
    """The chain explored (all 9 assignments), not verified (a test that verifies explores its own)."""
    return _explore(cache)


def _collection(axes, gid):
    (found,) = [c for c in axes.collections if c.get_gid() == gid]
    return found


def test_the_axes_are_quality_against_adp_with_every_uniform_configuration(result, cache):
    figure = draw(result, simulate=_simulate, cache=cache)
    (axes,) = figure.axes
    assert axes.get_xlabel().startswith("ADP (LUT equivalents x latency, us)")
    assert axes.get_ylabel() == "mae"
    # Each uniform configuration at its estimated ADP: LUT-eq x its schedule's cycles / the exact kernels' Fmax.
    fmax = min(exact["fmax_mhz"] for exact in result.costs.exact.values())
    expected = [point["lut_equivalents"] * result.cycles.cycles(point["selection"]) / fmax
                for point in result.uniform]
    uniform = _collection(axes, "uniform").get_offsets()
    assert [p["label"] for p in result.uniform] == ["exact", "mul=drum(k=3)", "mul=mitchell"]
    np.testing.assert_allclose(uniform[:, 0], expected)
    np.testing.assert_allclose(uniform[:, 1], [p["quality"] for p in result.uniform])
    # The exact configuration is dearer than the approximate ones (both of its units are exact).
    assert expected[0] > max(expected[1:])
    assert {text.get_text() for text in axes.texts} >= {"exact", "mul=drum(k=3)", "mul=mitchell"}
    front = _collection(axes, "front (estimate)").get_offsets()
    np.testing.assert_allclose(front[:, 0], [result.estimated_adp(p) for p in result.front])
    assert all(p["quality"] <= 2000 for p in result.front) and len(front) == len(result.front) >= 1
    # Nothing is verified: every marker is hollow.
    assert not _collection(axes, "uniform").get_facecolors()[:, 3].any()
    import matplotlib.pyplot as plt
    plt.close(figure)


def test_a_verified_point_is_drawn_at_its_measured_adp(cache):
    result = _explore(cache)
    exact = result.uniform[0]
    result.verify(points=[exact], simulate=_simulate, cache=cache)
    figure = draw(result, simulate=_simulate, cache=cache)
    uniform = _collection(figure.axes[0], "uniform")
    assert uniform.get_offsets()[0, 0] == pytest.approx(exact["verified"]["adp"])
    assert uniform.get_offsets()[0, 0] != pytest.approx(result.estimated_adp(exact))
    assert list(uniform.get_facecolors()[:, 3]) == [1, 0, 0]        # filled: measured
    verified = _collection(figure.axes[0], "front (verified)").get_offsets()
    np.testing.assert_allclose(verified[:, 0], [p["verified"]["adp"] for p in result.verified_front])
    import matplotlib.pyplot as plt
    plt.close(figure)


@pytest.mark.parametrize("suffix", ["png", "svg", "pdf"])
def test_the_file_is_the_same_bytes_every_time(result, cache, tmp_path, suffix):
    first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
    plot(result, first, simulate=_simulate, cache=cache)
    plot(result, second, simulate=_simulate, cache=cache)
    assert first.read_bytes() == second.read_bytes()
    assert b"Matplotlib v" not in first.read_bytes() and b"CreationDate" not in first.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [first.name, second.name]     # no temporary left


def test_bad_destinations_and_a_missing_simulator_fail_before_drawing(result, tmp_path, monkeypatch):
    with pytest.raises(artefacts.DestinationError, match=r"front\.jpg: a plot is written as \.png, \.svg, \.pdf"):
        plot(result, tmp_path / "front.jpg", simulate=_simulate)
    with pytest.raises(artefacts.DestinationError, match=r"missing does not exist"):
        plot(result, tmp_path / "missing" / "front.png", simulate=_simulate)
    monkeypatch.setattr(result, "cycles", None)      # no cycles known yet
    with pytest.raises(explore.ExploreError, match=r"needs a simulator"):
        plot(result, tmp_path / "front.png")
    assert list(tmp_path.iterdir()) == []


def test_the_command_writes_the_plot_of_its_result(tmp_path, capsys, cache, result):
    from axhls.cli import main
    path = tmp_path / "front.png"
    assert main(["explore", "tests/explore/explore_kernels.py:CHAIN", "--data", "tests/explore/explore_kernels.py:"
                 "chain_data", "--run", "tests/explore/explore_kernels.py:chain_run", "--quality",
                 "tests/explore/explore_kernels.py:chain_quality", "--bound", "mae<=2000", "--candidates", CANDIDATES,
                 "--evaluations", "9", "--population", "4", "--plot", str(path), "--json"]) == 0
    capsys.readouterr()
    plot(result, tmp_path / "library.png", simulate=_simulate, cache=cache)
    assert path.read_bytes() == (tmp_path / "library.png").read_bytes()
    assert math.isfinite(result.estimated_adp(result.front[0]))
