"""A kernel on an FPGA board: the top with its host link, and the host that calls it.

* :mod:`hls.board.uart`: the 8N1 UART;
* :mod:`hls.board.protocol`: the framed protocol, the memory map and the signature word;
* :mod:`hls.board.top`: :class:`KernelTop`, the kernel, its memories and the link as one component;
* :mod:`hls.board.host`: :func:`connect`, which returns the kernel as a callable on the board;
* :mod:`hls.board.boards`: the boards ``axhls build`` knows (``--list-boards``);
* :mod:`hls.board.pll`: the PLL from a board's oscillator to the kernel's clock;
* :mod:`hls.board.build`: ``hls.build``, a bitstream of the kernel with its link for a board
  (imported on first use: it loads amaranth-boards).

See ``docs/board.md``.
"""

from .host import (BoardError, BoardLink, BoardRun, CrcError, LinkError, LinkTimeout, SignatureMismatch,
                   connect, DEFAULT_BAUD)
from .protocol import kernel_signature_word, memory_map
from .top import KernelTop

__all__ = ["connect", "BoardLink", "BoardRun", "LinkError", "LinkTimeout", "CrcError", "SignatureMismatch",
           "BoardError", "KernelTop", "memory_map", "kernel_signature_word", "DEFAULT_BAUD"]
