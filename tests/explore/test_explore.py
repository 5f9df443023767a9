"""Per-operation approximation (issue 23): ``approx=`` by operation key, the compiled model that chooses
each operation's unit per run, bit-exact with the Python run, and the explorer's space, store and search."""

import random

import pytest

import explore_kernels as kernels
import hls
import hls.explore as explore
from hls.approx import choice
from hls.compiler import compile_kernel
from hls.errors import KernelSyntaxError
from hls.golden import CompiledModel


def _random_args(seed):
    rng = random.Random(seed)
    return {"a": [rng.randint(-128, 127) for _ in range(kernels.N)], "b": [rng.randint(0, 255) for _ in range(kernels.N)],
            "o": [0] * kernels.N, "d": rng.randint(0, 255)}


def test_every_operation_is_listed_once_by_its_operator_position():
    operations = kernels.mix.analyze().operations
    texts = [(op.key.split(":", 1)[1], op.kind, op.text) for op in operations]
    assert ("20:18", "mul", "a[i] * b[i]") in texts
    assert ("20:25", "add", "a[i] * b[i] + scaled(b[i], d)") in texts
    assert ("21:15", "div", "p // (d + 1)") in texts          # `d + 1` adds a constant: not listed
    assert ("21:45", "div", "b[i] // d") in texts
    assert len(texts) == 8 and len({op.key for op in operations}) == len(operations)
    # The helper's `x * w`, inlined twice, is one operation with two copies in the body.
    space = explore.Space([kernels.mix], {"mul": [choice("mul", "mitchell")]})
    (helper,) = [site for site in space.sites if site.operation.text == "x * w"]
    assert helper.key == "explore_kernels.py:12:15" and [count for _, count in helper.copies] == [2]


def test_an_operation_key_replaces_that_operation_only():
    operations = {op.text: op for op in kernels.mix.analyze().operations}
    key = operations["a[i] * b[i]"].key
    approximated = kernels.mix.with_approx({key: ("drum", {"k": 3})})
    sites = [(site.text, site.unit) for site in approximated.analyze().approximations]
    assert sites == [("a[i] * b[i]", "drum(k=3)")]
    args, exact_args = _random_args(1), _random_args(1)
    assert approximated(**args) != kernels.mix(**exact_args) or args["o"] != exact_args["o"]
    # Equal to the exact kernel with the product replaced by hls.approx.mul's value.
    unit = choice("mul", "drum", {"k": 3})
    from hls.unit_operators import approx_golden
    from amaranth import signed, unsigned
    product = approx_golden(unit, signed(8), unsigned(8))
    expected = []
    for i in range(kernels.N):
        a, b, d = exact_args["a"][i], exact_args["b"][i], exact_args["d"]
        p = product(a, b) + ((b * d) >> 4) + ((a * b) >> 4)
        q = (p // (d + 1) if d + 1 else 0) if i < 8 else (b // d if d else 0)
        value = (p + q) & ((1 << 20) - 1)
        expected.append(value - (1 << 20) if value >> 19 else value)
    assert args["o"] == expected


def test_bad_operation_keys_are_one_line_errors():
    with pytest.raises(KernelSyntaxError, match=r"no operation a unit may replace is written at explore_kernels\.py:99:3"):
        kernels.mix.with_approx({"explore_kernels.py:99:3": "mitchell"}).analyze()
    key = next(op.key for op in kernels.mix.analyze().operations if op.kind == "mul")
    with pytest.raises(KernelSyntaxError, match=r"'loa' is a unit for add, and this operation is mul"):
        kernels.mix.with_approx({key: ("loa", {"l": 2})}).analyze()
    with pytest.raises(ValueError, match=r"unknown unit 'frobnicate'"):
        kernels.mix.with_approx({key: "frobnicate"})


def _switched(kernel, units):
    choices = {op.key: units[op.kind] for op in kernel.analyze().operations if op.kind in units}
    return CompiledModel(kernel, choices=choices, fallback=False), choices


UNITS = {"mul": [choice("mul", "drum", {"k": 3}), choice("mul", "mitchell"), choice("mul", "mitchell_refined")],
         "div": [choice("div", "mitchell_div"), choice("div", "mitchell_div_refined", {"index_bits": 2})],
         "add": [choice("add", "loa", {"l": 3}), choice("add", "trunc_add", {"l": 2})]}


def test_the_switched_model_equals_the_python_run_of_each_assignment():
    model, choices = _switched(kernels.mix, UNITS)
    rng = random.Random(5)
    for trial in range(12):
        selection = [rng.randint(0, len(units)) for units in choices.values()]
        bound = kernels.mix.golden_model().match((), _random_args(trial))
        python = kernels.mix.with_approx(model.mapping(selection)).golden_model().run(bound)
        assert model.run(bound, selection=selection) == python, selection
    with pytest.raises(ValueError, match=r"out of range 0\.\.3"):
        model.run(bound, selection=[4] + [0] * (len(choices) - 1))
    with pytest.raises(ValueError, match=r"one index per switched operation"):
        model.run(bound, selection=[0])


def test_the_switched_model_of_an_application_kernel_equals_its_python_run():
    from examples.apps import image
    model, choices = _switched(image.sobel, UNITS)
    rng = random.Random(2)
    b = [rng.randint(0, 65535) for _ in range(image.N)]
    bound = {"b": b, "mag": [0] * image.N, "rows": 20}
    for _ in range(3):
        selection = [rng.randint(0, len(units)) for units in choices.values()]
        python = image.sobel.with_approx(model.mapping(selection)).golden_model().run(bound)
        assert model.run(bound, selection=selection) == python


def test_candidates_bounds_and_the_space():
    units = explore.parse_candidates("mul=drum(k=4),mitchell", kinds=("mul", "div"))
    assert [u.label for u in units["mul"]] == ["drum(k=4)", "mitchell"]
    assert units["div"][0].unit == "mitchell_div"           # the default list
    with pytest.raises(explore.ExploreError, match=r"unknown mul unit 'frobnicate'"):
        explore.parse_candidates("mul=frobnicate")
    with pytest.raises(explore.ExploreError, match=r"is not NAME=INTEGER"):
        explore.parse_candidates("mul=drum(k=x)")
    bound = explore.parse_bound("psnr_db>=35")
    assert bound.maximise and bound.holds(35) and not bound.holds(34.9)
    assert not explore.parse_bound("rmse<=2").maximise
    space = explore.Space([kernels.mix], units)
    kinds = [site.operation.kind for site in space.sites]
    assert kinds.count("mul") == 2 and kinds.count("div") == 2 and "add" not in kinds
    assert space.size == 3 ** 2 * 10 ** 2                   # each // takes the 9 default dividers
    with pytest.raises(explore.ExploreError, match=r"no approximable operation"):
        explore.Space([kernels.plain], units)


def test_an_operation_whose_every_copy_is_dead_code_is_skipped_not_searched():
    units = explore.parse_candidates("mul=drum(k=4),mitchell")
    space = explore.Space([kernels.half_dead], units)
    line = kernels.half_dead.fn.__code__.co_firstlineno + 4        # the decorator, the def (two lines), for
    # The helper's `x * w` is inlined twice: the copy for `dropped` is dead, the one for `kept` is
    # not, so it is a site of one copy; `unused`'s product reaches nothing and is left out, with its reason.
    (site,) = space.sites
    assert site.operation.text == "x * w" and [count for _, count in site.copies] == [1]
    assert space.size == 3
    (skipped,) = space.skipped
    assert (skipped.kernel, skipped.operation.lineno, skipped.operation.text, skipped.reason) == \
        ("half_dead", line, "a[i] * b[i]", "dead code")
    assert space.skipped_json() == [{"kernel": "half_dead", **skipped.operation.to_json(), "reason": "dead code"}]
    assert skipped.describe() == f"line {line} `a[i] * b[i]`: dead code"
    # The report of the kernel compiled with units on both decides the same (hls.ir.dead.dead_operations).
    report = compile_kernel(kernels.half_dead.with_approx({"mul": ("drum", {"k": 4})})).report.to_json()
    assert {site["text"]: site["dead"] for site in report["approx"]} == {"a[i] * b[i]": True, "x * w": False}


def test_a_kernel_whose_approximable_operations_are_all_dead_is_a_one_line_error():
    with pytest.raises(explore.ExploreError) as raised:
        explore.Space([kernels.all_dead], explore.parse_candidates())
    line = kernels.all_dead.fn.__code__.co_firstlineno + 2
    assert str(raised.value) == (f"all_dead: no approximable operation of the kinds searched (mul, div) is left to "
                                 f"explore: line {line} `a * b`: dead code; line {line + 1} `a // d`: dead code")
    # The `+` that is returned is live: searched, beside the two dead ones left out.
    space = explore.Space([kernels.all_dead], explore.parse_candidates(kinds=("mul", "div", "add")))
    assert [site.operation.text for site in space.sites] == ["a + b"]
    assert [(skipped.operation.text, skipped.reason) for skipped in space.skipped] == \
        [("a * b", "dead code"), ("a // d", "dead code")]


def test_an_operation_no_candidate_allows_is_skipped_with_its_reason():
    # lut_mul(t=8) fits `x * y`'s 16 x 16 bits, not `a * b`'s 4 x 4 (its top column is 6).
    space = explore.Space([kernels.narrow], {"mul": [choice("mul", "lut_mul", {"t": 8})]})
    assert [site.operation.text for site in space.sites] == ["x * y"]
    assert [(skipped.operation.text, skipped.reason) for skipped in space.skipped] == \
        [("a * b", "no candidate unit allows its operand widths")]


def test_the_default_candidates_are_offered_where_their_parameters_fit():
    space = explore.Space([kernels.narrow], explore.parse_candidates())
    offered = {site.operation.text: [unit.label for unit in site.units] for site in space.sites}
    drum = ["drum(k=3)", "drum(k=4)", "drum(k=5)", "drum(k=6)", "drum(k=8)"]
    logs = ["mitchell", "mitchell_refined", "iterlog(corrections=1)", "iterlog(corrections=2)"]
    # lut_mul(t) rounds the columns below t: none above a 4 x 4 product's top column 6, all up to 16 x 16's 30.
    assert offered["x * y"] == drum + logs + [f"lut_mul(t={t})" for t in (8, 12, 16, 18, 20, 22, 24)]
    assert offered["a * b"] == drum[:2] + logs
    # aaxd(k) takes k <= n (a unit is built at least 4 bits wide); mitchell_div_refined index_bits <= n - 1.
    assert offered["a // b"] == ["mitchell_div", "mitchell_div_refined(index_bits=2)",
                                 "mitchell_div_refined(index_bits=3)", "aaxd(k=3)", "aaxd(k=4)"]
    assert space.size == 17 * 7 * 6


def _mix_data():
    return [_random_args(seed) for seed in range(3)]


def _mix_quality(reference, output, data):
    errors = [abs(x - y) for ref, out in zip(reference, output) for x, y in zip(ref["o"], out["o"])]
    return {"mae": sum(errors) / len(errors), "label": "not a number"}


@pytest.mark.slow
def test_explore_finds_a_feasible_front_and_resumes_from_its_store(tmp_path):
    store = tmp_path / "mix.sqlite"
    options = dict(bound="mae<=400", candidates="mul=drum(k=3),mitchell;div=mitchell_div", evaluations=40,
                   population=8, seed=3, store=store)
    first = explore.explore(kernels.mix, _mix_data(), _mix_quality, **options)
    assert first.evaluated == len(first.points) and first.cached == 0
    assert first.front and all(point["quality"] <= 400 for point in first.front)
    costs = [point["lut_equivalents"] for point in first.front]
    qualities = [point["quality"] for point in first.front]
    assert costs == sorted(costs) and qualities == sorted(qualities, reverse=True)   # non-dominated
    # Each front point's quality is its Python run's (the kernel with its approx= mapping).
    point = first.front[0]
    mapping = first.approx(0)["mix"]
    approximated = kernels.mix.with_approx({key: (unit, params) for key, (unit, params) in mapping.items()})
    outputs = []
    for args in _mix_data():
        result = approximated(**args)
        outputs.append({"return": result, **{k: v for k, v in args.items() if isinstance(v, list)}})
    reference = []
    for args in _mix_data():
        result = kernels.mix(**args)
        reference.append({"return": result, **{k: v for k, v in args.items() if isinstance(v, list)}})
    assert _mix_quality(reference, outputs, None)["mae"] == point["quality"]
    again = explore.explore(kernels.mix, _mix_data(), _mix_quality, **options)
    assert again.evaluated == 0 and again.cached >= len(first.points)
    assert [p["selection"] for p in again.front] == [p["selection"] for p in first.front]
    with pytest.raises(explore.ExploreError, match=r"returns a non-number for 'label'"):
        explore.explore(kernels.mix, _mix_data(), _mix_quality, **{**options, "bound": "label<=1"})


def test_the_space_takes_minus_on_adders_and_percent_on_dividers_where_they_fit():
    units = explore.parse_candidates(kinds=("sub", "mod"))
    assert [u.label for u in units["sub"]] == [u.label for u in explore.parse_candidates(kinds=("add",))["add"]]
    assert [u.label for u in units["mod"]] == [u.label for u in explore.parse_candidates(kinds=("div",))["div"]]
    assert {u.kind for u in units["sub"]} == {"sub"} and {u.kind for u in units["mod"]} == {"mod"}
    with pytest.raises(explore.ExploreError, match=r"'drum' is a mul unit, not an add unit; allowed for sub"):
        explore.parse_candidates("sub=drum(k=4)", kinds=("sub",))
    space = explore.Space([kernels.residues], units)
    line = kernels.residues.fn.__code__.co_firstlineno + 4        # the decorator's line, then def, for
    offered = {(site.key, site.operation.text): [unit.label for unit in site.units] for site in space.sites}
    adders = [u.label for u in units["sub"]]
    dividers = [u.label for u in units["mod"]]
    assert offered == {
        (f"explore_kernels.py:{line}:21", "a[i] - b[i]"): adders,
        # 4-bit units: l < 4 for loa and trunc_add, k <= 4 for aaxd, index_bits <= 3 for mitchell_div_refined.
        (f"explore_kernels.py:{line}:33", "n - m"): ["loa(l=2)", "loa(l=3)", "trunc_add(l=2)", "eta1(l=3)", "hoaaned(l=3)"],
        (f"explore_kernels.py:{line + 1}:21", "a[i] % b[i]"): dividers,
        (f"explore_kernels.py:{line + 1}:32", "n % m"): ["mitchell_div", "mitchell_div_refined(index_bits=2)",
                                                       "mitchell_div_refined(index_bits=3)", "aaxd(k=3)", "aaxd(k=4)"],
    }
    # The default kinds leave them out; `-` and `%` are asked for, as `+` is.
    with pytest.raises(explore.ExploreError, match=r"no \* // between two non-constant operands"):
        explore.Space([kernels.residues], explore.parse_candidates())


def test_the_switched_model_of_minus_and_percent_equals_the_python_run_and_applies():
    units = explore.parse_candidates("sub=loa(l=3),trunc_add(l=2);mod=mitchell_div,aaxd(k=3)", kinds=("sub", "mod"))
    space = explore.Space([kernels.residues], units)
    choices = {site.key: list(site.units) for site in space.sites}
    model = CompiledModel(kernels.residues, choices=choices, fallback=False)
    rng = random.Random(23)
    for trial in range(10):
        args = {"a": [rng.randint(-128, 127) for _ in range(kernels.M)], "b": [rng.randint(0, 63) for _ in range(kernels.M)],
                "n": rng.randint(0, 7), "m": rng.randint(0, 3), "o": [0] * kernels.M, "r": [0] * kernels.M}
        args["b"][0] = 0
        selection = [rng.randint(0, len(units)) for units in choices.values()]
        bound = kernels.residues.golden_model().match((), args)
        mapping = space.mapping(selection)["residues"]
        python = kernels.residues.with_approx(mapping).golden_model().run(bound)
        assert model.run(bound, selection=selection) == python, selection
        # What --apply writes ({key: [unit, {params}]}) gives the same kernel.
        applied = {key: (unit.unit, dict(unit.params)) for key, unit in mapping.items()}
        approximated = kernels.residues.with_approx(applied)
        assert sorted((site.kind, site.unit) for site in approximated.analyze().approximations) == \
            sorted((unit.kind, unit.label) for unit in mapping.values())
        assert approximated.golden_model().run(bound) == python
