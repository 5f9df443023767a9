"""The component's interface: handshake, argument latching, results held, array ports that take a Memory."""

from amaranth.hdl import Module, signed
from amaranth.lib import memory, wiring
from amaranth.sim import Simulator

from benchmarks.kernels import load
from hls.backend.component import ControlSignature, kernel_signature
from hls.compiler import compile_kernel


def _vsum():
    kernel, _ = load("vsum")
    return kernel


def test_signature_members():
    members = kernel_signature(compile_kernel(_vsum()).ir).members
    assert members["ctrl"].signature == ControlSignature()
    assert members["n"].flow == wiring.In
    assert members["ret"].flow == wiring.Out
    (param,) = [p for p in _vsum().params if p.kind == "array"]
    addr_width = (param.depth - 1).bit_length()
    assert members[f"{param.name}_read"].signature == \
        memory.ReadPort.Signature(addr_width=addr_width, shape=param.shape).flip()
    assert members[f"{param.name}_write"].signature == \
        memory.WritePort.Signature(addr_width=addr_width, shape=param.shape).flip()


def test_memory_attaches_with_wiring_connect_and_handshake_behaves():
    kernel = _vsum()
    (param,) = [p for p in kernel.params if p.kind == "array"]
    data = [(i * 37) % 200 - 100 for i in range(param.depth)]
    m = Module()
    m.submodules.dut = dut = kernel.to_amaranth()
    m.submodules.mem = mem = memory.Memory(shape=param.shape, depth=param.depth, init=data)
    wiring.connect(m, getattr(dut, f"{param.name}_read"), mem.read_port())
    wiring.connect(m, getattr(dut, f"{param.name}_write"), mem.write_port())
    seen = {}

    async def testbench(ctx):
        assert not ctx.get(dut.ctrl.busy)
        for run_index, n in enumerate((10, 0, 17)):
            ctx.set(dut.n, n)
            ctx.set(dut.ctrl.start, 1)
            await ctx.tick()
            ctx.set(dut.ctrl.start, 0)
            ctx.set(dut.n, 3)          # arguments are latched at start: changing them now has no effect
            done_cycles = []
            for cycle in range(200):
                if ctx.get(dut.ctrl.done):
                    done_cycles.append(cycle)
                    assert ctx.get(dut.ctrl.busy)
                    break
                assert ctx.get(dut.ctrl.busy)
                await ctx.tick()
            assert done_cycles, "no done"
            await ctx.tick()
            assert not ctx.get(dut.ctrl.done)            # one-cycle pulse
            assert not ctx.get(dut.ctrl.busy)
            seen[n] = ctx.get(dut.ret)
            await ctx.tick()
            assert ctx.get(dut.ret) == seen[n]           # held until the next start

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    for n in (10, 0, 17):
        assert seen[n] == kernel(a=list(data), n=n)


def test_start_while_busy_is_ignored():
    kernel = _vsum()
    data = list(range(64))
    m = Module()
    m.submodules.dut = dut = kernel.to_amaranth()
    m.submodules.mem = mem = memory.Memory(shape=signed(16), depth=64, init=data)
    wiring.connect(m, dut.a_read, mem.read_port())
    wiring.connect(m, dut.a_write, mem.write_port())
    result = {}

    async def testbench(ctx):
        ctx.set(dut.n, 20)
        ctx.set(dut.ctrl.start, 1)
        await ctx.tick()
        ctx.set(dut.n, 5)            # start stays high: must not restart the busy kernel
        for _ in range(200):
            if ctx.get(dut.ctrl.done):
                break
            await ctx.tick()
        result["ret"] = ctx.get(dut.ret)

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()
    assert result["ret"] == sum(range(20))


def test_verilog_names_the_module_and_ports():
    text = _vsum().to_verilog()
    assert "module vsum(" in text
    for port in ("ctrl__start", "ctrl__done", "ctrl__busy", "a_read__addr", "a_read__data", "a_write__en", "ret"):
        assert port in text
