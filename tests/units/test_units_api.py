"""The approx_units API contract: ids, parameters, errors, signatures, metrics, pipelining."""

import numpy as np
import pytest
from amaranth.hdl import Fragment, signed, unsigned

import approx_units
from approx_units import metrics
from approx_units import UnitSignature
from approx_units.dataflow import Ops, arrival_times, partition

IDS = ["exact_add", "loa", "trunc_add", "eta1", "gear", "hoaaned", "exact_mul", "trunc_mul", "drum",
       "mitchell", "mitchell_refined", "iterlog", "lut_mul", "vctm_mul",
       "exact_div", "mitchell_div", "mitchell_div_refined", "aaxd"]


def test_names_are_the_issue_ids():
    assert approx_units.names() == IDS


def test_unknown_id_lists_known_ids():
    with pytest.raises(approx_units.UnknownUnitError) as caught:
        approx_units.get("wallace", width=8)
    message = str(caught.value)
    assert "\n" not in message and "'wallace'" in message and "mitchell_div_refined" in message
    assert isinstance(caught.value, KeyError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("kwargs,fragment", [
    ({"width": 3}, "width=3 is out of range; allowed: 4..32"),
    ({"width": 33}, "width=33 is out of range; allowed: 4..32"),
    ({"width": 8.0}, "width must be an integer in 4..32"),
    ({"stages": -1}, "stages=-1 is out of range; allowed: 0..16"),
    ({"l": 0}, "l=0 is out of range; allowed: 1..7"),
    ({"l": 8}, "l=8 is out of range; allowed: 1..7"),
    ({"q": 1}, "unit 'loa' has no parameter 'q'; its parameters are: l, signed"),
    ({"signed": 1}, "signed must be True or False"),
])
def test_bad_parameters_name_the_parameter_and_range(kwargs, fragment):
    with pytest.raises(ValueError) as caught:
        approx_units.get("loa", **{"width": 8, **kwargs})
    assert fragment in str(caught.value)


@pytest.mark.parametrize("name,kwargs,fragment", [
    ("gear", {"r": 3, "p": 3}, "(width - r - p) divisible by r"),
    ("gear", {"r": 6, "p": 4}, "r + p <= width"),
    ("trunc_mul", {"c": 16}, "c=16 is out of range; allowed: 0..15"),
    ("drum", {"k": 1}, "k=1 is out of range; allowed: 2..8"),
    ("iterlog", {"corrections": 9}, "corrections=9 is out of range; allowed: 0..8"),
    ("mitchell_refined", {"index_bits": 8}, "index_bits=8 is out of range; allowed: 1..7"),
    ("mitchell_refined", {"mantissa_bits": 0}, "mantissa_bits=0 is out of range; allowed: 1..7"),
    ("mitchell_refined", {"index_bits": 5, "mantissa_bits": 4}, "index_bits=5 must not exceed mantissa_bits=4"),
    ("mitchell_div_refined", {"index_bits": 7}, "index_bits=7 is out of range; allowed: 1..6"),
    ("exact_div", {"frac_bits": 9}, "frac_bits=9 is out of range; allowed: 0..8"),
    ("loa", {"width_b": 4}, "unit 'loa' has no parameter 'width_b'"),
    ("drum", {"width_b": 5, "k": 6}, "k=6 is out of range; allowed: 2..5"),
    ("exact_mul", {"width_b": 40}, "width_b=40 is out of range; allowed: 4..32"),
])
def test_unit_specific_parameter_errors(name, kwargs, fragment):
    with pytest.raises(ValueError) as caught:
        approx_units.get(name, width=8, **kwargs)
    assert fragment in str(caught.value)


def test_signed_32_bit_divider_limits_fraction_bits():
    assert approx_units.get("exact_div", width=32, signed=True).params["frac_bits"] == 31
    with pytest.raises(ValueError, match="frac_bits=32 is out of range; allowed: 0..31"):
        approx_units.get("exact_div", width=32, signed=True, frac_bits=32)


def test_operands_out_of_range_are_refused_not_clamped():
    unit = approx_units.get("loa", width=8)
    with pytest.raises(ValueError, match="operand a value 256 is out of range"):
        unit.model([1, 256], [1, 1])
    with pytest.raises(ValueError, match="operand b value -1 is out of range"):
        unit.model([1], [-1])


@pytest.mark.parametrize("name", IDS)
def test_unit_attributes(name):
    unit = approx_units.get(name, width=8, stages=2)
    assert unit.name == name and unit.latency == 2 and unit.width == 8
    assert unit.kind in ("add", "mul", "div")
    assert "\n" not in unit.description and unit.description
    assert unit.reference and unit.recommended_stages >= 0
    assert "signed" in unit.params
    expected_width = {"add": 9, "mul": 16, "div": 16}[unit.kind]
    assert unit.output_width == expected_width
    again = approx_units.get(name, width=8, stages=2, **unit.params)
    assert again.params == unit.params


def test_signature_reflects_shapes_and_pipelining():
    unit = approx_units.get("mitchell", width=8, stages=1, signed=True)
    component = unit.component()
    assert component.signature == UnitSignature(signed(8), signed(8), signed(16), pipelined=True)
    assert set(component.signature.members) == {"a", "b", "o", "valid_in", "valid_out"}
    combinational = approx_units.get("exact_mul", width=8, width_b=4).component()
    assert combinational.signature == UnitSignature(unsigned(8), unsigned(4), unsigned(12), pipelined=False)
    assert set(combinational.signature.members) == {"a", "b", "o"}
    assert combinational.signature != component.signature
    for elaboratable in (component, combinational):
        Fragment.get(elaboratable, None)        # elaborates (and marks them used)


@pytest.mark.parametrize("name", ["exact_mul", "mitchell_refined", "exact_div", "exact_add"])
def test_pipelining_shortens_the_critical_path(name):
    # Registers are placed inside the logic, not only at the output.
    unit = approx_units.get(name, width=32)
    combinational = unit.critical_path(0)
    assert unit.critical_path(1) < 0.75 * combinational
    assert unit.critical_path(3) < unit.critical_path(1)


def test_partition_registers_every_crossing_value():
    unit = approx_units.get("exact_mul", width=16)
    cut = partition(unit.graph, 2)
    for node in unit.graph.nodes:
        for arg in node.args:
            if arg.op != "const":
                assert cut.segment[arg] <= cut.segment[node]
    assert cut.segment[unit.graph.output] == 2      # the multiplier is long enough to fill 3 segments


def test_numpy_backend_refuses_nodes_wider_than_64_bits():
    from approx_units.numpy_backend import evaluate
    ops = Ops()
    a, b = ops.input("a", 40), ops.input("b", 40)
    ops.graph.output = ops.mul(a, b)
    with pytest.raises(ValueError, match="at most 64-bit values, but node #2 \\(mul\\) is 80 bits wide"):
        evaluate(ops.graph, {"a": np.array([1]), "b": np.array([1])})


def test_arrival_times_follow_carry_chains():
    # The calibrated model (ns): a carry chain costs 1.5 ns plus 0.035 ns per bit.
    ops = Ops()
    a, b = ops.input("a", 32), ops.input("b", 32)
    total = ops.add(a, b)
    chained = ops.add(total, b)
    times = arrival_times(ops.graph)
    assert times[total] == pytest.approx(1.5 + 0.035 * 32)
    assert times[chained] == pytest.approx(times[total] + 1.5 + 0.035 * 33)


def test_metrics_definitions():
    exact = np.array([0, 4, 10, 2])
    approx = np.array([1, 4, 8, 3])
    assert metrics.er(exact, approx) == 0.75
    assert metrics.med(exact, approx) == 1.0
    assert metrics.mred(exact, approx) == pytest.approx((0 + 0.2 + 0.5) / 3)
    assert metrics.wce(exact, approx) == 2
    assert metrics.wcre(exact, approx) == 0.5
    assert metrics.mse(exact, approx) == 1.5
    assert metrics.bias(exact, approx) == 0.0
    assert metrics.relative_bias(exact, approx) == pytest.approx((0 - 0.2 + 0.5) / 3)
    assert metrics.error_variance(exact, approx) == 1.5
    assert metrics.nmed(exact, approx, kind="mul", width=4) == 1 / 225
    assert metrics.nmed(exact, approx, kind="add", width=4) == 1 / 30
    assert metrics.mae_pct(exact, approx, kind="mul", width=4) == 100 / 256
    assert metrics.wce_pct(exact, approx, kind="add", width=4) == 200 / 32


def test_metrics_merge_equals_whole_and_handles_64_bit_products():
    unit = approx_units.get("mitchell", width=32)
    rng = np.random.default_rng(3)
    a = rng.integers(0, 1 << 32, 10_000, dtype=np.uint64)
    b = rng.integers(0, 1 << 32, 10_000, dtype=np.uint64)
    whole = metrics.accumulate(unit, a, b)
    parts = metrics.accumulate(unit, a[:3000], b[:3000]) + metrics.accumulate(unit, a[3000:], b[3000:])
    for key, value in whole.metrics("mul", 32).items():
        assert parts.metrics("mul", 32)[key] == pytest.approx(value, rel=1e-12)
    assert whole.metrics("mul", 32)["mred"] == pytest.approx(0.038, abs=0.002)


def test_divider_accumulate_excludes_and_counts_division_by_zero():
    unit = approx_units.get("exact_div", width=4)
    a, b = np.meshgrid(np.arange(16), np.arange(16))
    stats = metrics.accumulate(unit, a.ravel(), b.ravel())
    assert stats.excluded == 16 and stats.count == 240 and stats.errors == 0
    with pytest.raises(ValueError, match="kind must be 'add', 'mul' or 'div'"):
        stats.metrics("sqrt", 4)
    with pytest.raises(ValueError, match="no input pairs"):
        metrics.ErrorStats().metrics("add", 4)


def test_sim_exports_run_unit_lazily():
    import sim
    from sim.unit_simulation import run_unit
    assert sim.run_unit is run_unit
    with pytest.raises(ValueError, match="backend must be one of amaranth, icarus"):
        run_unit(approx_units.get("loa", width=4), [1], [1], backend="verilator")


def test_divider_statistics_remember_their_quotient_format():
    unit = approx_units.get("mitchell_div", width=6, frac_bits=4)
    a, b = np.meshgrid(np.arange(64), np.arange(64))
    a, b = a.ravel(), b.ravel()
    stats = metrics.accumulate(unit, a[:2000], b[:2000]) + metrics.accumulate(unit, a[2000:], b[2000:])
    assert stats.frac_bits == 4
    assert stats.metrics("div", 6) == stats.metrics("div", 6, frac_bits=4)
    assert stats.metrics("div", 6)["nmed"] == stats.med / (63 * 16)
    other = metrics.accumulate(approx_units.get("mitchell_div", width=6, frac_bits=2), a, b)
    with pytest.raises(ValueError, match="quotients with 4 and 2 fraction bits"):
        stats + other


def test_docs_table_lists_every_unit_with_its_parameters_and_reference():
    from pathlib import Path
    from approx_units.registry import spec
    text = (Path(__file__).resolve().parents[2] / "docs" / "units.md").read_text()
    rows = {}
    for line in text.splitlines():
        if line.startswith("| `"):
            rows.setdefault(line.split("|")[1].strip(), line)      # the unit table comes first
    for name in approx_units.names():
        row = rows.get(f"`{name}`")
        assert row is not None, f"docs/units.md has no row for {name}"
        unit_spec = spec(name)
        for param in unit_spec.params:
            assert f"`{param.name}`: {param.doc}" in row
        assert unit_spec.reference in row and unit_spec.summary in row


def test_model_tiles_cover_the_outer_product_exactly_once():
    unit = approx_units.get("mitchell_refined", width=6, signed=True)
    a = np.arange(-32, 32).reshape(-1, 1)
    b = np.arange(-32, 32).reshape(1, -1)
    whole = np.full((64, 64), np.iinfo(np.int64).min)
    for rows, cols, values in unit.model_tiles(a, b):
        assert (whole[rows, cols] == np.iinfo(np.int64).min).all()
        whole[rows, cols] = values
    np.testing.assert_array_equal(whole, unit.model(a, b))


def test_an_unknown_unit_lists_the_known_ones_in_catalogue_order_whatever_was_imported_first():
    # The registry fills in import order; a process that imported the multipliers first
    # (a kernel with approx=) must print the same message as one that did not.
    import subprocess
    import sys
    program = ("import approx_units.multipliers, approx_units.registry as r\n"
               "try:\n    r.spec('nonesuch')\nexcept KeyError as error:\n    print(error)\n")
    printed = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout
    from approx_units.registry import names
    assert printed.strip() == f"unknown unit 'nonesuch'; known units: {', '.join(names())}"
