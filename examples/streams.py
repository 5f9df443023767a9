"""Stream kernels (issue 22): ``hls.Stream`` ports read and written token by token.

``python examples/streams.py`` runs each kernel's golden model, then its hardware in
Amaranth's simulator with random ``valid``/``ready`` stalls, runs three of them as one
``@hls.dataflow`` chain, and attaches Amaranth FIFOs to the stream ports of one of them
with ``wiring.connect``.

From the shell::

    axhls sim examples/streams.py:moving_sum --args examples/streams_args.json --stall-probability 0.3
"""

import hls
from amaranth import signed, unsigned


@hls.kernel
def moving_sum(s: hls.Stream[signed(12)], o: hls.Stream[signed(14)], n: unsigned(10)):
    """The sum of the last four tokens, one token in and one out per cycle (II 1)."""
    a: signed(12) = 0
    b: signed(12) = 0
    c: signed(12) = 0
    for i in range(n):
        x = s.read()
        o.write(x + a + b + c)
        c = b
        b = a
        a = x


@hls.kernel
def threshold_runs(s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(8)], n: unsigned(10),
                   level: unsigned(8)) -> unsigned(10):
    """The length of every run of tokens above ``level``, written when the run ends."""
    run: unsigned(8) = 0
    runs: unsigned(10) = 0
    for i in range(n):
        x = s.read()
        if x > level:
            run = run + 1
        elif run > 0:
            o.write(run)
            runs = runs + 1
            run = 0
    if run > 0:
        o.write(run)
        runs = runs + 1
    return runs


@hls.kernel
def magnitude(s: hls.Stream[signed(14)], o: hls.Stream[unsigned(8)], n: unsigned(10)):
    """``|x| / 16``, saturated to 8 bits."""
    for i in range(n):
        x = s.read()
        o.write(min(abs(x) >> 4, 255))


@hls.dataflow
def detector(s: hls.Stream[signed(12)], o: hls.Stream[unsigned(8)], n: unsigned(10)):
    """The three kernels as one chain: the stages run at once, through two FIFOs."""
    smoothed = hls.fifo(signed(14))
    magnitudes = hls.fifo(unsigned(8))
    moving_sum(s=s, o=smoothed, n=n)
    magnitude(s=smoothed, o=magnitudes, n=n)
    threshold_runs(s=magnitudes, o=o, n=n, level=96)


def main():
    import random

    from amaranth.hdl import Module
    from amaranth.lib import fifo, wiring
    from amaranth.sim import Simulator

    import sim

    rng = random.Random(1)
    samples = [rng.randint(-2048, 2047) for _ in range(64)]
    sums = []
    moving_sum(s=samples, o=sums, n=len(samples))
    print(f"moving_sum: {len(sums)} tokens, first {sums[:4]}")
    levels = [rng.randint(0, 255) for _ in range(64)]
    lengths = []
    runs = threshold_runs(s=levels, o=lengths, n=len(levels), level=128)
    print(f"threshold_runs: {runs} runs, lengths {lengths}")

    for kernel, args in ((moving_sum, {"s": samples, "n": len(samples)}),
                         (threshold_runs, {"s": levels, "n": len(levels), "level": 128})):
        free = sim.run(kernel, args)
        stalled = sim.run(kernel, args, stall_probability=0.3, stall_seed=1)
        print(f"{kernel.name}: hardware matches Python: {free.match and stalled.match}; "
              f"{free.cycles} cycles, {stalled.cycles} under stalls of probability 0.3")

    events = []
    detector(s=samples, o=events, n=len(samples))
    chained = sim.run(detector, {"s": samples, "n": len(samples)}, stall_probability=0.3, stall_seed=2)
    print(f"detector: {len(events)} runs; the chain's hardware matches Python: {chained.match}, "
          f"{chained.cycles} cycles under stalls")

    # Amaranth FIFOs on both sides: wiring.connect, no glue.
    m = Module()
    m.submodules.kernel = kernel = moving_sum.to_amaranth()
    m.submodules.source = source = fifo.SyncFIFO(width=12, depth=64)
    m.submodules.sink = sink = fifo.SyncFIFO(width=14, depth=64)
    wiring.connect(m, source.r_stream, kernel.s)
    wiring.connect(m, kernel.o, sink.w_stream)
    got = []

    async def testbench(ctx):
        for sample in samples:
            ctx.set(source.w_data, sample & 0xFFF)
            ctx.set(source.w_en, 1)
            await ctx.tick()
        ctx.set(source.w_en, 0)
        ctx.set(kernel.n, len(samples))
        ctx.set(kernel.ctrl.start, 1)
        await ctx.tick()
        ctx.set(kernel.ctrl.start, 0)
        await ctx.tick().until(kernel.ctrl.done)
        ctx.set(sink.r_en, 1)
        while ctx.get(sink.r_rdy):
            value = ctx.get(sink.r_data)
            got.append(value - (1 << 14) if value >> 13 else value)
            await ctx.tick()

    simulator = Simulator(m)
    simulator.add_clock(1e-8)
    simulator.add_testbench(testbench)
    simulator.run()
    print(f"through Amaranth FIFOs: {got == sums}")


if __name__ == "__main__":
    main()
