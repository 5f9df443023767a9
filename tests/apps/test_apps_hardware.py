"""Every application's kernels: hardware against the Python run on a reduced input."""

import re

import pytest

import sim
from examples.apps import ecg, image, tracking
from sim.errors import ToolUnavailable
from sim.tools import find_simulator

APPS = {"image": image, "ecg": ecg, "tracking": tracking}


def _trace(app, kernels=None):
    trace = []
    output = app.run(kernels or app.KERNELS, app.reduced_input(), trace)
    assert len(trace) == len(app.KERNELS)
    return output, trace


@pytest.mark.parametrize("name", APPS)
def test_exact_chain_matches_python_in_amaranth(name):
    _, trace = _trace(APPS[name])
    for kernel, args in trace:
        result = sim.run(kernel, args)
        assert result.match, (kernel.name, result.differences)


@pytest.mark.cocotb
@pytest.mark.parametrize("name", APPS)
def test_exact_chain_matches_python_under_icarus(name):
    try:
        find_simulator("icarus")
    except ToolUnavailable as error:
        pytest.skip(str(error))
    _, trace = _trace(APPS[name])
    for kernel, args in trace:
        result = sim.run(kernel, args, backend="icarus")
        assert result.match, (kernel.name, result.differences)


def test_reduced_inputs_exercise_the_kernels():
    # The reduced inputs must reach the interesting paths, or the hardware checks prove little.
    edges, _ = _trace(image)
    assert edges.max() == 255 and (edges[2:-2, 2:-2] > 0).mean() > 0.5
    beats, _ = _trace(ecg)
    assert len(beats) >= 2
    estimates, _ = _trace(tracking)
    assert len(estimates) == len(tracking.reduced_input()["t"])


def test_full_inputs_give_sensible_exact_results():
    beats = ecg.run(ecg.KERNELS, ecg.default_input())
    data = ecg.default_input()
    assert ecg.quality(beats, beats, data)["f1_vs_truth"] >= 0.9
    data = tracking.default_input()
    estimates = tracking.run(tracking.KERNELS, data)
    scores = tracking.quality(estimates, estimates, data)
    assert scores["rmse_vs_exact_m"] == 0.0 and scores["rmse_increase_pct"] == 0.0
    # The tracker filters: closer to the true path than the raw measurements (noise 0.8 m per axis).
    assert scores["rmse_vs_truth_m"] < 0.8 * (2 ** 0.5)


def test_generators_are_seeded():
    a, b = ecg.synthetic_ecg(2.0, seed=5), ecg.synthetic_ecg(2.0, seed=5)
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all()
    assert (ecg.synthetic_ecg(2.0, seed=6)[0] != a[0]).any()
    t1, t2 = tracking.synthetic_track(50, seed=1), tracking.synthetic_track(50, seed=1)
    assert (t1["zx"] == t2["zx"]).all()


#: Approximate configurations whose hardware is checked: every multiplier and divider of the
#: benchmark, each at least once.
APPROX = {
    "drum6+mitchell_div": {"mul": ("drum", {"k": 6}), "div": "mitchell_div"},
    "mitchell+mitchell_div_refined": {"mul": "mitchell", "div": "mitchell_div_refined"},
    "mitchell_refined": {"mul": "mitchell_refined"},
}


@pytest.mark.parametrize("config", APPROX)
@pytest.mark.parametrize("name", APPS)
def test_approximate_chain_matches_python_in_amaranth(name, config):
    app = APPS[name]
    kernels = tuple(kernel.with_approx(APPROX[config]) for kernel in app.KERNELS)
    _, trace = _trace(app, kernels)
    reports = ""
    for kernel, args in trace:
        reports += kernel.report().to_text()
        result = sim.run(kernel, args)
        assert result.match, (kernel.name, result.differences)
    # Every unit of the configuration replaced an operator somewhere in the chain (the report says so).
    for choice in APPROX[config].values():
        unit = choice if isinstance(choice, str) else choice[0]
        assert re.search(rf"\b{unit}\b", reports), unit


def test_the_ecg_chain_streams_the_sequential_kernels_arrays_bit_for_bit():
    data = ecg.default_input()
    trace = []
    beats = ecg.run(ecg.KERNELS, data, trace)
    args = ecg.chain_arguments(data)
    n = args["n"]
    x = trace[0][1]["x"]
    hp, mwi = [0] * ecg.N, [0] * ecg.N
    ecg.bandpass(x=list(x), lp=[0] * ecg.N, hp=hp, n=n)
    ecg.features(hp=list(hp), sq=[0] * ecg.N, mwi=mwi, n=n)
    hp_tokens, mwi_tokens, beat_tokens = [], [], []
    ecg.bandpass_stream(x=args["x"], hp=hp_tokens, n=n)
    ecg.features_stream(hp=hp_tokens, mwi=mwi_tokens, n=n)
    ecg.detect_stream(mwi=mwi_tokens, beats=beat_tokens, n=n)
    assert hp_tokens == hp[ecg.PAD:n] and mwi_tokens == mwi[ecg.PAD:n]
    chained = ecg.run_chain(data)
    assert len(beats) > 20 and chained.tolist() == beats.tolist()
    assert ecg.detector.tokens_read == {"x": n - ecg.PAD}


@pytest.mark.parametrize("stall_probability", [0.0, 0.3])
def test_the_ecg_chain_in_hardware_equals_its_golden_model(stall_probability):
    result = sim.run(ecg.detector, ecg.chain_arguments(ecg.reduced_input()), stall_probability=stall_probability,
                     stall_seed=4)
    assert result.match, result.differences
    assert result.outputs["streams"]["beats"] and result.expected["tokens_read"] == {"x": 320}


def _sequential_image_arrays(data):
    trace = []
    edge_map = image.run(image.KERNELS, data, trace)
    rows = data["image"].shape[0]
    mag = [0] * image.N
    peak = image.sobel(b=list(trace[1][1]["b"]), mag=mag, rows=rows)
    return edge_map, mag[:rows * image.W], peak


def test_the_image_chain_streams_the_sequential_kernels_arrays_bit_for_bit():
    data = image.default_input()
    edge_map, mag, peak = _sequential_image_arrays(data)
    args = image.chain_arguments(data)
    image.edges(**args)
    assert args["mag"] == mag and args["peak"] == [peak]
    assert (image.run_chain(data) == edge_map).all() and edge_map.max() == 255
    assert image.edges.tokens_read == {"img": image.W * image.W}


def _image_chain_in_hardware(data, stall_probability, seed, chain=image.edges):
    _, mag, peak = _sequential_image_arrays(data)
    result = sim.run(chain, image.chain_arguments(data), stall_probability=stall_probability,
                     stall_seed=seed)
    assert result.match, result.differences
    assert result.outputs["streams"]["mag"] == mag and result.outputs["streams"]["peak"] == [peak]
    return result


@pytest.mark.parametrize("stall_probability", [0.0, 0.3])
def test_the_image_chain_in_hardware_equals_the_sequential_kernels(stall_probability):
    # A strip of 5 rows: the line buffers fill, and the Sobel ring leaves one row of results.
    result = _image_chain_in_hardware(image.reduced_input(rows=5), stall_probability, seed=5)
    assert any(result.outputs["streams"]["mag"])


def test_the_image_chain_for_150_mhz_under_stalls_equals_the_sequential_kernels():
    # For 150 MHz the stages' stream reads take their predicates (`k < pixels`) from registers,
    # a cycle after the comparison (DelayModel.stream_stall): the same tokens, bit for bit.
    result = _image_chain_in_hardware(image.reduced_input(rows=5), 0.3, seed=6, chain=image.edges.with_clock(150))
    assert any(result.outputs["streams"]["mag"])


@pytest.mark.slow
def test_the_image_chain_on_the_whole_image_under_stalls_equals_the_sequential_kernels():
    _image_chain_in_hardware(image.default_input(), 0.3, seed=7)


def test_an_approximate_configuration_applies_to_every_stage_of_a_chain():
    config = APPROX["drum6+mitchell_div"]
    chain = ecg.detector.with_approx(config).with_clock(150.0)
    assert [stage.kernel.approx for stage in chain.stages] == [ecg.KERNELS[0].with_approx(config).approx] * 3
    assert {stage.kernel.clock_mhz for stage in chain.stages} == {150.0}
    assert ecg.detector.stages[0].kernel.approx == {}
    with pytest.raises(ValueError, match="nonsense"):
        ecg.detector.with_approx({"mul": "nonsense"})
    # The approximate chain streams the approximate kernels' results, in Python on the whole input...
    data = ecg.default_input()
    kernels = tuple(kernel.with_approx(config) for kernel in ecg.KERNELS)
    args = ecg.chain_arguments(data)
    ecg.detector.with_approx(config)(**args)
    assert (ecg.run(kernels, data) + ecg.PAD + ecg.DELAY).tolist() == args["beats"]


def test_the_approximate_image_chain_in_hardware_equals_the_approximate_kernels():
    config = APPROX["mitchell_refined"]
    data = image.reduced_input(rows=5)
    kernels = tuple(kernel.with_approx(config) for kernel in image.KERNELS)
    trace = []
    image.run(kernels, data, trace)
    mag = [0] * image.N
    peak = kernels[1](b=list(trace[1][1]["b"]), mag=mag, rows=5)
    chain = image.edges.with_approx(config)
    assert "mitchell_refined" in chain.stages[0].kernel.report().to_text()
    result = sim.run(chain, image.chain_arguments(data), stall_probability=0.3, stall_seed=2)
    assert result.match, result.differences
    assert result.outputs["streams"]["mag"] == mag[:5 * image.W] and result.outputs["streams"]["peak"] == [peak]
