"""The error engine against brute-force computations and the literature."""

import math

import numpy as np
import pytest

import approx_units
from approx_units import evaluate as ev


def brute_force(unit, exact_of):
    """Metrics by a plain Python loop over every operand pair (the reference)."""
    lo_a, hi_a = unit.operand_range("a")
    lo_b, hi_b = unit.operand_range("b")
    count = errors = 0
    sum_abs = sum_sq = sum_rel = 0.0
    worst = nonzero = 0
    for a in range(lo_a, hi_a + 1):
        for b in range(lo_b, hi_b + 1):
            exact = exact_of(a, b)
            error = int(unit.model(a, b)) - exact
            count += 1
            errors += error != 0
            sum_abs += abs(error)
            sum_sq += error * error
            worst = max(worst, abs(error))
            if exact:
                nonzero += 1
                sum_rel += abs(error) / abs(exact)
    return {"er": errors / count, "med": sum_abs / count, "mse": sum_sq / count,
            "wce": worst, "mred": sum_rel / nonzero}


@pytest.mark.parametrize("name, params, signed, exact_of", [
    ("loa", {"l": 3}, False, lambda a, b: a + b),
    ("eta1", {"l": 3}, True, lambda a, b: a + b),
    ("trunc_mul", None, False, lambda a, b: a * b),
])
def test_exhaustive_engine_matches_brute_force(name, params, signed, exact_of):
    unit_params = dict(params or {})
    if signed:
        unit_params["signed"] = True
    if name not in approx_units.names():
        pytest.skip(f"{name} not in the library yet")
    unit = approx_units.get(name, width=5, **unit_params)
    result = ev.evaluate(ev.LibraryUnit(name, 5, 0, tuple(sorted(unit_params.items()))))
    assert result.exhaustive and result.samples == 2 ** 10
    for metric, expected in brute_force(unit, exact_of).items():
        assert result.metrics[metric] == pytest.approx(expected, rel=1e-12), metric


def test_known_answers_from_the_literature():
    # LOA: ER = 1 - (3/4)^l; truncated adder: MED = 2^l - 1; GeAr(8, 2, 2): ER = 18.75 %.
    loa = ev.evaluate(ev.LibraryUnit("loa", 8, 0, (("l", 4),)))
    assert loa.metrics["er"] == pytest.approx(1 - 0.75 ** 4)
    trunc = ev.evaluate(ev.LibraryUnit("trunc_add", 8, 0, (("l", 3),)))
    assert trunc.metrics["med"] == pytest.approx(7)
    gear = ev.evaluate(ev.LibraryUnit("gear", 8, 0, (("p", 2), ("r", 2))))
    assert gear.metrics["er"] == pytest.approx(0.1875)


def test_chunking_and_process_pool_do_not_change_the_result(monkeypatch):
    subject = ev.LibraryUnit("loa", 8, 0, (("l", 5),))
    whole = ev.evaluate(subject)
    monkeypatch.setattr(ev, "CHUNK_PAIRS", 1000)          # 256 * 4 pairs per task: 64 tasks
    monkeypatch.setattr(ev, "_PARALLEL_THRESHOLD", 0)     # force the process pool
    pooled = ev.evaluate(subject, workers=2)
    assert pooled.metrics == pytest.approx(whole.metrics, rel=1e-12)
    assert pooled.samples == whole.samples == 65536


def test_monte_carlo_interval_covers_the_exhaustive_value():
    subject = ev.LibraryUnit("loa", 10, 0, (("l", 5),))
    truth = ev.evaluate(subject, exhaustive=True).metrics
    sampled = ev.evaluate(subject, samples=40_000, seed=1)
    assert not sampled.exhaustive and sampled.samples == 40_000
    for name in ("er", "med", "mred", "mse", "bias"):
        low, high = sampled.ci95[name]
        assert low <= truth[name] <= high, name
        if name in ("er", "med", "mse"):        # well away from zero: a tight interval
            assert high - low < 0.1 * truth[name], name
    assert "wce" not in sampled.ci95      # a sampled maximum is only a lower bound
    assert sampled.metrics["wce"] <= truth["wce"]


def test_intervals_stay_inside_each_metric_s_range():
    # Nearly every pair is wrong (ER close to 1) and errors are small: the
    # batch-means interval would otherwise reach past 1 and below 0.
    sampled = ev.evaluate(ev.LibraryUnit("mitchell_refined", 16, 0, ()), samples=20_000, seed=5)
    for name, (low, high) in sampled.ci95.items():
        assert low <= sampled.metrics[name] <= high, name
    assert sampled.ci95["er"][1] <= 1.0
    zero = ev.evaluate(ev.LibraryUnit("exact_mul", 16, 0, ()), samples=20_000, seed=5)
    assert all(low >= 0.0 for name, (low, high) in zero.ci95.items() if name in ("er", "med", "mred", "mse"))


def test_same_seed_same_result_other_seed_other_result():
    subject = ev.LibraryUnit("loa", 16, 0, (("l", 6),))
    first = ev.evaluate(subject, samples=5000, seed=3).metrics
    assert ev.evaluate(subject, samples=5000, seed=3).metrics == first
    assert ev.evaluate(subject, samples=5000, seed=4).metrics != first


def test_histogram_distribution():
    # All the weight on a = 7 and on b in {1, 9}: the metrics of those two pairs.
    unit = approx_units.get("loa", width=8, l=4)
    a_hist = np.zeros(256); a_hist[7] = 1
    b_hist = np.zeros(16); b_hist[[1, 9]] = 1
    result = ev.evaluate(ev.LibraryUnit("loa", 8, 0, (("l", 4),)),
                         distribution=ev.Histogram(a_hist, b_hist), samples=4000)
    errors = [abs(int(unit.model(7, b)) - (7 + b)) for b in (1, 9)]
    assert result.metrics["wce"] == max(errors)
    assert 0.4 * sum(errors) < result.metrics["med"] < 0.6 * sum(errors)


def test_histogram_of_samples_and_its_errors():
    hist = ev.Histogram.of_samples([0, 1, 1, 3])
    assert hist.a.tolist() == [0.25, 0.5, 0, 0.25]
    with pytest.raises(ValueError, match="non-negative"):
        ev.Histogram([-1, 2])
    with pytest.raises(ValueError, match="bins but the operand has only 16 values"):
        ev.evaluate(ev.LibraryUnit("loa", 4, 0, (("l", 2),)), distribution=ev.Histogram(np.ones(17)),
                    samples=10)


def test_pairs_are_evaluated_exactly_as_given():
    unit = approx_units.get("loa", width=8, l=4)
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 256, 999), rng.integers(0, 256, 999)
    result = ev.evaluate(ev.LibraryUnit("loa", 8, 0, (("l", 4),)), distribution=ev.Pairs(a, b))
    error = unit.model(a, b).astype(np.int64) - (a + b)
    assert result.samples == 999
    assert result.metrics["med"] == pytest.approx(np.abs(error).mean())
    assert result.metrics["bias"] == pytest.approx(error.mean())
    with pytest.raises(ValueError, match="equal length"):
        ev.Pairs([1, 2], [3])


def test_default_mode_and_limits():
    assert ev.evaluate(ev.LibraryUnit("exact_add", 12, 0, ())).exhaustive        # 2 x 12 bits
    assert ev.DEFAULT_EXHAUSTIVE_BITS == 32                                        # 16 x 16 by default
    assert not ev.evaluate(ev.LibraryUnit("exact_add", 13, 0, ()), samples=1000).exhaustive
    with pytest.raises(ValueError, match=r"2\^34 pairs.*--samples"):
        ev.evaluate(ev.LibraryUnit("exact_add", 17, 0, ()), exhaustive=True)
    with pytest.raises(ValueError, match="positive"):
        ev.evaluate(ev.LibraryUnit("exact_add", 8, 0, ()), samples=0)


def test_unsigned_32_bit_products_do_not_overflow():
    if "exact_mul" not in approx_units.names():
        pytest.skip("multipliers not in the library yet")
    result = ev.evaluate(ev.LibraryUnit("exact_mul", 32, 0, ()), samples=2000)
    assert result.metrics["er"] == 0 and result.metrics["wce"] == 0


def test_signed_multiplier_operands_cover_negative_values():
    if "mitchell" not in approx_units.names():
        pytest.skip("mitchell not in the library yet")
    result = ev.evaluate(ev.LibraryUnit("mitchell", 6, 0, (("signed", True),)))
    unsigned = ev.evaluate(ev.LibraryUnit("mitchell", 6, 0, ()))
    assert result.samples == 2 ** 12
    # Sign-magnitude wrapping keeps relative errors the same order as the unsigned unit's.
    assert result.metrics["mred"] == pytest.approx(unsigned.metrics["mred"], rel=0.5)


def test_divider_measures_and_division_by_zero():
    if "exact_div" not in approx_units.names():
        pytest.skip("dividers not in the library yet")
    result = ev.evaluate(ev.LibraryUnit("exact_div", 6, 0, ()))
    metrics = result.metrics
    assert metrics["excluded_division_by_zero"] == 64
    assert metrics["int_er"] == 0          # the exact divider is its own integer reference
    assert 0 < metrics["mred"] < 1         # but truncation differs from the real quotient
    assert math.isfinite(metrics["wcre"])


@pytest.mark.parametrize("signed", [False, True])
def test_integer_quotient_reference_is_the_exact_divider(signed):
    unit = approx_units.get("exact_div", width=6, frac_bits=3, signed=signed)
    lo, hi = unit.operand_range("a")
    a, b = np.meshgrid(np.arange(lo, hi + 1), np.arange(lo, hi + 1))
    a, b = a.ravel(), b.ravel()
    keep = b != 0
    reference = ev._integer_quotient(a[keep], b[keep], 3, signed)
    assert np.array_equal(reference.astype(np.int64), unit.model(a[keep], b[keep]).astype(np.int64))


@pytest.mark.parametrize("name, signed", [("mitchell", False), ("mitchell", True), ("drum", False),
                                          ("mitchell_div", False), ("mitchell_div", True),
                                          ("loa", False), ("eta1", True)])
@pytest.mark.parametrize("block", [64, 1000])      # one-row tiles (operand a a scalar), multi-row tiles
def test_tiled_exhaustive_evaluation_equals_spelled_out_pairs(name, signed, block, monkeypatch):
    # The engine evaluates a x b as an outer product, tile by tile; the reference
    # spells every pair out and takes the statistics of the whole arrays at once.
    from approx_units import metrics, numpy_backend
    if name not in approx_units.names():
        pytest.skip(f"{name} not in the library yet")
    params = {"signed": True} if signed else {}
    unit = approx_units.get(name, width=6, **params)
    monkeypatch.setattr(numpy_backend, "BLOCK", block)
    result = ev.evaluate(ev.LibraryUnit(name, 6, 0, tuple(sorted(params.items()))), exhaustive=True)
    lo_a, hi_a = unit.operand_range("a")
    lo_b, hi_b = unit.operand_range("b")
    a, b = (x.ravel() for x in np.meshgrid(np.arange(lo_a, hi_a + 1), np.arange(lo_b, hi_b + 1)))
    approx = unit.model(a, b)
    if unit.kind == "div":
        keep = b != 0
        exact = ev._integer_quotient(a[keep], b[keep], ev._frac_bits(unit), signed)
        expected = metrics.ErrorStats.of_quotient(a, b, approx, frac_bits=ev._frac_bits(unit)).metrics(
            "div", 6, 6, ev._frac_bits(unit))
        integer = metrics.ErrorStats.of(exact, approx[keep]).metrics("div", 6, 6, ev._frac_bits(unit))
        expected.update({f"int_{k}": integer[k] for k in ("er", "med", "mred", "wce", "mse", "bias")})
        expected["excluded_division_by_zero"] = int((~keep).sum())
    else:
        exact = a + b if unit.kind == "add" else a * b
        expected = metrics.ErrorStats.of(exact, approx).metrics(unit.kind, 6, 6)
    assert result.samples == a.size
    assert result.metrics.keys() == expected.keys()
    for key, value in expected.items():
        assert result.metrics[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


@pytest.mark.parametrize("options, message", [
    ({"workers": 0}, "workers must be a positive number of processes, not 0"),
    ({"workers": -3}, "workers must be a positive number of processes, not -3"),
    ({"seed": -1, "samples": 100}, "seed must be a non-negative integer, not -1"),
])
def test_workers_and_seed_are_checked_however_small_the_run(options, message):
    # An 8-bit run never starts a pool: a bad worker count must not pass there and fail at 2^32 pairs.
    with pytest.raises(ValueError, match=message):
        ev.evaluate(ev.LibraryUnit("drum", 8), **options)


def test_pools_of_the_library_refuse_no_workers(tmp_path):
    from approx_units import catalog, sweep
    with pytest.raises(ValueError, match="jobs must be a positive number of worker processes, not 0"):
        sweep.process_pool(0)
    with pytest.raises(ValueError, match="jobs must be a positive number of synthesis runs at a time, not 0"):
        catalog.export(tmp_path / "out", targets=("ecp5",), units=["loa"], widths=(8,), jobs=0)
    assert not (tmp_path / "out").exists()
