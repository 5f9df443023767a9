"""Store-to-load forwarding: read-after-write through memory at II = 1, for every collision distance."""

from hypothesis import given, settings, strategies as st

import semantics_kernels as kernels
from benchmarks.kernels import load
from sim.kernel import run


def _loop(kernel):
    (loop,) = [entry for entry in kernel.report().to_json()["loops"] if entry["pipelined"]]
    return loop


def _indices_colliding_at(distance, seed_values):
    """Indices where x[i] == x[i - distance] wherever possible, from the given seed values."""
    x = list(seed_values)
    for i in range(distance, len(x)):
        if i % 2 == 0:
            x[i] = x[i - distance]
    return x


@settings(max_examples=24, deadline=None)
@given(st.sampled_from([1, 2, 3]), st.lists(st.integers(0, 7), min_size=16, max_size=16),
       st.lists(st.integers(-128, 127), min_size=16, max_size=16), st.integers(0, 16))
def test_histogram_collisions_at_distances_one_to_three(distance, seeds, weights, n):
    x = _indices_colliding_at(distance, seeds)
    result = run(kernels.scatter_add, {"x": x, "w": weights, "h": [0] * 8, "n": n})
    assert result.match, result.differences


def test_every_element_the_same_address():
    result = run(kernels.scatter_add, {"x": [5] * 16, "w": list(range(-8, 8)), "h": [1] * 8, "n": 16})
    assert result.match, result.differences


def test_forwarding_reaches_ii_one():
    loop = _loop(kernels.scatter_add)
    assert loop["ii"] == 1 and loop["bound"]["kind"] in ("memory", "recurrence")
    for name in ("histogram", "weighted_histogram"):
        assert _loop(load(name)[0])["ii"] == 1


def test_the_bound_names_the_user_s_subscript_not_the_front_end_s_temporary():
    # h[x[i]] += 1 evaluates x[i] once into a temporary; the explanation must
    # still read as the source does.
    text = str(load("histogram")[0].report())
    assert "`h[x[i]]` -> `h[x[i]] (forwarded)`" in text and "index" not in text


@settings(max_examples=16, deadline=None)
@given(st.lists(st.integers(0, 7), min_size=16, max_size=16), st.lists(st.integers(0, 50), min_size=8, max_size=8),
       st.integers(0, 16))
def test_two_predicated_stores_the_latest_matching_one_wins(x, h, n):
    result = run(kernels.two_stores, {"x": x, "h": h, "n": n})
    assert result.match, result.differences


@settings(max_examples=16, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=16, max_size=16))
def test_prefix_sum_in_place_reads_memory_only_in_the_first_iteration(a):
    result = run(kernels.in_place, {"a": a})
    assert result.match, result.differences


def test_prefix_sums_reach_ii_one():
    # a[i] + a[i-1]: one read port, yet II 1: a[i-1] is the value stored one iteration earlier.
    assert _loop(kernels.in_place)["ii"] == 1
    assert _loop(load("prefix_sum")[0])["ii"] == 1


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(-128, 127), min_size=16, max_size=16), st.integers(1, 15), st.integers(0, 16))
def test_predicated_store_is_forwarded_only_when_it_happened(a, start, n):
    result = run(kernels.running_max, {"a": a, "start": start, "n": n})
    assert result.match, result.differences


def test_forwarding_from_many_stores_slower_than_a_period_still_schedules():
    # Found by sim.fuzz (seed 41, program 364): eight stores to forward from made the
    # forwarding multiplexer longer than the clock period, and the problem was rejected.
    report = kernels.many_stores.report().to_json()
    assert report["loops"][0]["pipelined"]
    for seed in range(3):
        rng = __import__("random").Random(seed)
        args = {"x": [rng.randrange(8) for _ in range(16)], "h": [rng.randrange(256) for _ in range(8)], "n": 16}
        result = run(kernels.many_stores, args)
        assert result.match, result.differences
