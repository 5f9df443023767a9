"""The FIFOs of a dataflow chain: :class:`RegisterFIFO`, a drop-in for ``amaranth.lib.fifo.SyncFIFO``.

``SyncFIFO`` keeps its tokens in a ``Memory`` with an asynchronous read port, addressed by a
write and a read pointer.  Synthesised without LUT RAM (the project's flow:
``synth_ecp5 -nodsp -nobram -nolutram -nowidelut``), that is a register per stored bit,
a ``depth``:1 multiplexer per output bit and two pointers beside the level counter: an
8-bit, two-token ``SyncFIFO`` takes 19 LUT4 for its 16 stored bits.

:class:`RegisterFIFO` has the same ports and the same cycle-for-cycle behaviour (the same
``level``, ``w_rdy = level != depth``, ``r_rdy = level != 0``, a token written in one cycle
readable the next), and keeps its tokens in registers that shift toward the output:
``r_data`` is entry 0's register, a read moves every entry down one place, and a write lands
in the first free entry.  A valid bit per entry stands for the level (``w_rdy`` is the last
one, kept inverted; ``r_rdy`` the first), so there are no pointers and no counter.  Each entry but
the last loads the entry above it while that one is valid, else ``w_data``: one 2:1
multiplexer per bit (a LUT4) selected by a register, enabled by the register's clock enable;
the last loads only ``w_data``.  So its data path is ``width x (depth - 1)`` LUT4, under one
LUT4 per stored bit at every depth (``python benchmarks/streams.py --fifo-only`` measures
both; :func:`chain_fifo` keeps it to two tokens and uses :class:`LutRamFIFO` deeper).
"""

from __future__ import annotations

from amaranth.hdl import Elaboratable, Module, Mux, Signal
from amaranth.lib.memory import Memory
from amaranth.lib.fifo import FIFOInterface

__all__ = ["RegisterFIFO", "LutRamFIFO", "chain_fifo", "implementation", "data_luts", "area_estimate",
           "REGISTER_DEPTH", "REGISTER_CONTROL_LUTS", "LUT_RAM_CONTROL_LUTS"]


class _CheckedFIFO(Elaboratable, FIFOInterface):
    # The two queues' shared constructor: the shape checked before anything is built, and `level`.
    def __init__(self, *, width: int, depth: int):
        problem = _problem(width, depth)
        if problem is not None:
            self._MustUse__silence = True      # refused: never to be elaborated
            raise ValueError(problem)
        super().__init__(width=width, depth=depth)
        self.level = Signal(range(depth + 1))


class RegisterFIFO(_CheckedFIFO):
    """Synchronous first in, first out queue in shift registers, with ``SyncFIFO``'s interface
    and timing (see the module's documentation).

    Parameters
    ----------
    width : int
        Bits per token, at least 1.
    depth : int
        Tokens it holds, at least 1.

    Attributes
    ----------
    w_data, w_en, w_rdy, w_level, r_data, r_en, r_rdy, r_level : Signal
        As ``amaranth.lib.fifo.FIFOInterface``; ``r_data`` is valid while ``r_rdy`` is high.
    w_stream, r_stream : amaranth.lib.stream.Interface
        The write and read sides as streams (``FIFOInterface``'s).
    level : Signal(range(depth + 1))
        Tokens held.

    Raises
    ------
    ValueError
        For a width or depth below 1 (quoting it).
    """

    def elaborate(self, platform):
        m = Module()
        depth = self.depth
        # valid[i]: entry i holds a token; the valid entries are 0 .. level - 1.  The last one is
        # kept inverted (`space`, which is `w_rdy`), so that nothing needs an inverter.
        space = Signal(init=1)
        valid = [Signal(name=f"valid{index}") for index in range(depth - 1)] + [~space]
        entries = [Signal(self.width, name=f"entry{index}", reset_less=True) for index in range(depth)]
        m.d.comb += [self.w_rdy.eq(space), self.r_rdy.eq(valid[0]), self.r_data.eq(entries[0]),
                     self.level.eq(sum(valid)), self.w_level.eq(self.level), self.r_level.eq(self.level)]
        do_read = valid[0] & self.r_en
        do_write = space & self.w_en
        for index, entry in enumerate(entries):
            above = valid[index + 1] if index + 1 < depth else None
            # A read moves the entry above down, or the token written lands here (the first free
            # entry after the read); a free entry loads `w_data` whether or not it is written,
            # which only its valid bit decides.  The last entry moves down on a read, and is
            # then not written in the same cycle (it was full), so only a free one loads.
            with m.If((do_read | ~valid[index]) if above is not None else space):
                if above is None:
                    m.d.sync += entry.eq(self.w_data)
                else:
                    m.d.sync += entry.eq(Mux(above, entries[index + 1], self.w_data))
            # Written as one expression of the valid bits, so that it is a LUT in front of the
            # register (no clock enable, whose merging with the reset costs a LUT more).
            below = valid[index - 1] if index else 1
            after = Mux(do_write & ~do_read, valid[index] | below,
                        Mux(do_read & ~do_write, 0 if above is None else above, valid[index]))
            m.d.sync += (space.eq(~after) if above is None else valid[index].eq(after))
        return m


class LutRamFIFO(_CheckedFIFO):
    """Synchronous first in, first out queue in distributed RAM, with ``SyncFIFO``'s interface,
    structure and timing: a ``Memory`` with an asynchronous read port between a write and a read
    pointer, marked ``ram_style = "distributed"`` so that Yosys maps it to LUT RAM
    (``TRELLIS_DPR16X4`` on ECP5, 16 tokens x 4 bits each) even in a flow that maps other
    memories to registers (``-nolutram`` only stops automatic LUT RAM).

    Parameters
    ----------
    width : int
        Bits per token, at least 1.
    depth : int
        Tokens it holds, at least 1.

    Attributes
    ----------
    As :class:`RegisterFIFO`.

    Raises
    ------
    ValueError
        For a width or depth below 1 (quoting it).
    """

    def elaborate(self, platform):
        m = Module()
        level, depth = self.level, self.depth
        do_read, do_write = _level(m, self)
        storage = m.submodules.storage = Memory(shape=self.width, depth=depth, init=[],
                                                attrs={"ram_style": "distributed"})
        w_port = storage.write_port()
        r_port = storage.read_port(domain="comb")
        produce = Signal(range(depth))
        consume = Signal(range(depth))
        m.d.comb += [w_port.addr.eq(produce), w_port.data.eq(self.w_data), w_port.en.eq(do_write),
                     r_port.addr.eq(consume), self.r_data.eq(r_port.data)]
        with m.If(do_write):
            m.d.sync += produce.eq(Mux(produce == depth - 1, 0, produce + 1))
        with m.If(do_read):
            m.d.sync += consume.eq(Mux(consume == depth - 1, 0, consume + 1))
        return m


def _problem(width, depth) -> str | None:
    for name, value in (("width", width), ("depth", depth)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            return f"a FIFO's {name} must be an integer of at least 1, not {value!r}"
    return None


def _check(width, depth) -> None:
    problem = _problem(width, depth)
    if problem is not None:
        raise ValueError(problem)


def _level(m: Module, queue) -> tuple:
    """``SyncFIFO``'s handshake on ``queue.level``: ``w_rdy = level != depth``, ``r_rdy = level != 0``,
    the level counted up by a write and down by a read; ``(do_read, do_write)``."""
    level = queue.level
    m.d.comb += [queue.w_rdy.eq(level != queue.depth), queue.r_rdy.eq(level != 0),
                 queue.w_level.eq(level), queue.r_level.eq(level)]
    do_read = queue.r_rdy & queue.r_en
    do_write = queue.w_rdy & queue.w_en
    with m.If(do_write & ~do_read):
        m.d.sync += level.eq(level + 1)
    with m.If(do_read & ~do_write):
        m.d.sync += level.eq(level - 1)
    return do_read, do_write


#: The deepest FIFO :func:`chain_fifo` builds in registers; deeper ones are LUT RAM.  At depth 2 a
#: register FIFO takes ``width + 4`` LUT-eq, LUT RAM ``6 x ceil(width / 4) + 9``; at depth 3,
#: ``2 x width + 8`` against ``6 x ceil(width / 4) + 11`` (ECP5, ``benchmarks/fifo_area.py``).
REGISTER_DEPTH = 2

#: LUT-eq of a :class:`RegisterFIFO`'s valid bits and clock enables, by depth; and of a
#: :class:`LutRamFIFO`'s pointers, level and bank selects, ``(a, b, c)``: ``a + b x`` the level's
#: bits in one 16-token bank, ``c`` in several: fitted by ``python benchmarks/fifo_area.py --fit``
#: (ECP5) to its calibration sizes; the same script prints the estimate's error on sizes the fit
#: never saw.
REGISTER_CONTROL_LUTS = {1: 2, 2: 4}
LUT_RAM_CONTROL_LUTS = (-4.70, 6.70, 46.67)


def chain_fifo(width: int, depth: int):
    """The FIFO of a chain for ``width``-bit tokens and ``depth`` of them: a :class:`RegisterFIFO`
    up to :data:`REGISTER_DEPTH`, else a :class:`LutRamFIFO`.

    Raises
    ------
    ValueError
        For a width or depth below 1.
    """
    _check(width, depth)
    return (RegisterFIFO if depth <= REGISTER_DEPTH else LutRamFIFO)(width=width, depth=depth)


def implementation(depth: int) -> str:
    """What :func:`chain_fifo` keeps ``depth`` tokens in: ``"registers"`` or ``"LUT RAM"``."""
    return "registers" if depth <= REGISTER_DEPTH else "LUT RAM"


def data_luts(width: int, depth: int) -> int:
    """The LUT-eq of :func:`chain_fifo`'s data path on ECP5, from its structure: for registers, a
    2:1 multiplexer per bit of every entry but the last; for LUT RAM, 6 per ``TRELLIS_DPR16X4``
    (16 tokens x 4 bits) and a 2:1 multiplexer tree per bit across the 16-token banks."""
    if depth <= REGISTER_DEPTH:
        return width * (depth - 1)
    banks = -(-depth // 16)
    return 6 * -(-width // 4) * banks + (banks - 1) * width


def area_estimate(width: int, depth: int) -> dict:
    """The estimated ECP5 area of :func:`chain_fifo` (``width``, ``depth``), the chain report's
    ``area_estimate``: ``{"target": "ecp5", "lut_equivalents", "ffs", "lut_ram_cells", "basis"}``.
    ``lut_equivalents`` is :func:`data_luts` plus the control's fitted LUTs
    (:data:`REGISTER_CONTROL_LUTS`, :data:`LUT_RAM_CONTROL_LUTS`); ``ffs`` counts the stored
    bits and a valid bit per token (registers), or the level and the two pointers (LUT RAM)."""
    _check(width, depth)
    level_bits = depth.bit_length()
    if depth <= REGISTER_DEPTH:
        control = REGISTER_CONTROL_LUTS[depth]
        ffs, cells = (width + 1) * depth, 0
    else:
        a, b, c = LUT_RAM_CONTROL_LUTS
        control = round(a + b * level_bits if depth <= 16 else c)
        ffs, cells = 2 * (depth - 1).bit_length() + level_bits, -(-width // 4) * -(-depth // 16)
    return {"target": "ecp5", "lut_equivalents": data_luts(width, depth) + control, "ffs": ffs,
            "lut_ram_cells": cells,
            "basis": "structure plus control fitted to synth_ecp5 (python benchmarks/fifo_area.py)"}
