# amaranth: UnusedElaboratable=no
"""KernelSignature: computed from scalars, results and arrays; equal when they are; its
attributes name every port, and they are the names the Verilog has."""

import re

import pytest
from amaranth.back import verilog
from amaranth.hdl import Module, signed, unsigned
from amaranth.lib import memory, wiring

from benchmarks.kernels import KERNEL_NAMES, load
from hls.backend.component import ControlSignature, KernelSignature, kernel_signature
from hls.compiler import compile_kernel


def _example():
    return KernelSignature(scalars={"n": unsigned(7), "k": signed(4)}, results=[signed(16), unsigned(4)],
                           arrays={"a": (signed(8), 8), "h": (unsigned(8), 9)})


def test_attributes_hold_the_parameters_as_shapes():
    sig = _example()
    assert sig.control == "ctrl"
    assert sig.scalars == {"n": unsigned(7), "k": signed(4)}
    assert sig.results == [("ret_0", signed(16)), ("ret_1", unsigned(4))]
    assert sig.arrays == {"a": (signed(8), 8), "h": (unsigned(8), 9)}
    assert sig.array_groups == {"a": ("a_read", "a_write"), "h": ("h_read", "h_write")}
    assert (sig.addr_width("a"), sig.addr_width("h")) == (3, 4)
    assert KernelSignature(results=[8]).results == [("ret", unsigned(8))]
    assert KernelSignature(scalars={"x": 3}).scalars == {"x": unsigned(3)}


def test_members_follow_the_convention():
    members = _example().members
    assert list(members.keys()) == ["ctrl", "n", "k", "ret_0", "ret_1", "a_read", "a_write", "h_read", "h_write"]
    assert members["ctrl"].flow == wiring.Out and members["ctrl"].signature == ControlSignature()
    assert (members["n"].flow, members["n"].shape) == (wiring.In, unsigned(7))
    assert (members["ret_1"].flow, members["ret_1"].shape) == (wiring.Out, unsigned(4))
    assert members["h_read"].signature == memory.ReadPort.Signature(addr_width=4, shape=unsigned(8)).flip()
    assert members["h_write"].signature == memory.WritePort.Signature(addr_width=4, shape=unsigned(8)).flip()


def test_equality_and_hash_follow_the_parameters():
    assert _example() == _example() and hash(_example()) == hash(_example())
    assert _example() != KernelSignature(scalars={"n": unsigned(7), "k": signed(5)},
                                         results=[signed(16), unsigned(4)],
                                         arrays={"a": (signed(8), 8), "h": (unsigned(8), 9)})
    assert _example() != KernelSignature(scalars={"n": unsigned(7), "k": signed(4)},
                                         results=[signed(16), unsigned(4)],
                                         arrays={"a": (signed(8), 8), "h": (unsigned(8), 10)})
    assert KernelSignature(results=[8]) != KernelSignature(results=[8, 8])
    # Same members, but not the same kind of signature.
    plain = wiring.Signature(dict(KernelSignature(results=[8]).members.items()))
    assert KernelSignature(results=[8]) != plain
    assert KernelSignature(results=[8]).flip().flip() == KernelSignature(results=[8])


def test_repr_rebuilds_an_equal_signature():
    sig = _example()
    assert repr(sig) == ("KernelSignature(scalars={'n': unsigned(7), 'k': signed(4)}, "
                         "results=[signed(16), unsigned(4)], "
                         "arrays={'a': (signed(8), 8), 'h': (unsigned(8), 9)})")
    assert eval(repr(sig), {"KernelSignature": KernelSignature, "signed": signed, "unsigned": unsigned}) == sig


def test_clashing_names_and_bad_depths_are_errors():
    with pytest.raises(ValueError, match="'a_read' is defined twice"):
        KernelSignature(scalars={"a_read": 4}, arrays={"a": (8, 4)})
    with pytest.raises(ValueError, match="'ctrl' is defined twice"):
        KernelSignature(scalars={"ctrl": 1})
    with pytest.raises(ValueError, match="depth must be at least 1, not 0"):
        KernelSignature(arrays={"a": (8, 0)})
    with pytest.raises(TypeError, match="depth must be an integer"):
        KernelSignature(arrays={"a": (8, 4.0)})


def test_ports_are_the_verilog_ports():
    """Every port ``ports()`` lists is declared in the converted Verilog with that direction and
    width, and the module has no other port."""
    sig = _example()

    class Shell(wiring.Component):
        def __init__(self):
            super().__init__(sig)

        def elaborate(self, platform):
            return Module()

    text = verilog.convert(Shell(), name="shell")
    declared = {match["name"]: (match["direction"], int(match["msb"] or 0) + 1)
                for match in re.finditer(r"^  (?P<direction>input|output) (?:\[(?P<msb>\d+):0\] )?"
                                         r"(?P<name>\w+);$", text, re.MULTILINE)}
    assert declared == {p["name"]: (p["direction"], p["width"]) for p in sig.ports()}
    assert {p["name"]: p["signed"] for p in sig.ports()}["k"] is True
    assert [p["name"] for p in sig.ports()][:4] == ["ctrl__start", "ctrl__busy", "ctrl__done", "n"]


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_every_benchmark_kernel_gets_its_parameters_signature(name):
    kernel, _ = load(name)
    ir = compile_kernel(kernel).ir
    sig = kernel_signature(ir)
    assert isinstance(sig, KernelSignature)
    assert sig.scalars == dict(ir.scalar_params)
    assert [shape for _, shape in sig.results] == [ir.variables[var] for var in ir.return_vars]
    assert sig.arrays == ir.arrays
    component = kernel.to_amaranth()
    component._MustUse__silence = True  # only its signature is looked at, it is never elaborated
    assert component.signature == sig
