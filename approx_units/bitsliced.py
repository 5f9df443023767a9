"""Bit-sliced native evaluation of a gate netlist, fused with the error statistics.

A third-party circuit read by :mod:`approx_units.verilog_eval` is a list of
single-bit gates.  Evaluated one operand pair at a time (even in SIMD lanes,
as the graph kernels of :mod:`approx_units.compiled` do), each gate costs an
instruction per few pairs; here every net is a vector of 8 ``uint64_t`` words
(gcc's vector extension, one AVX-512 register where the machine has it), so
one bitwise instruction evaluates a gate for **512 operand pairs**:

* In an exhaustive block, the 512 pairs share ``a`` and take 512 consecutive
  values of ``b`` starting at a multiple of 512.  Bits 0-2 of ``b`` then select
  the word of the vector and bits 3-8 the bit within the word, so those nine
  input words are constants; every higher bit of ``b`` and every bit of ``a``
  is all zeros or all ones.  Gates that read ``a`` only are computed once per
  value of ``a``, in scalar words.
* For given pairs (sampled operands), the operand values of 512 pairs are laid
  out in the same order and bit-transposed into the input words.
* The output words are bit-transposed back (the 64 x 64 bit-matrix transpose of
  Hacker's Delight, 7-3, on all 8 words at once), which leaves the output of
  pair ``p`` of the block at index ``p`` of the result array.  The error
  statistics then run over that array with the very per-pair code of the graph
  kernels (:class:`approx_units.compiled._Stats`): the same operations and
  roundings as :class:`~approx_units.metrics.ErrorStats`, vectorised.

The kernel has the ABI of :mod:`approx_units.compiled`'s (``model_pairs``,
``eval_pairs``, ``eval_range``), so :class:`NetlistEvaluator` is a
:class:`~approx_units.compiled.Evaluator` in every respect but its source: the
integer fields and maxima of its statistics are identical to the numpy
engine's, its floating-point sums agree to about 1e-13 relative.
"""

from __future__ import annotations

from .compiled import _PRELUDE, _TOTALS, Evaluator, KernelSpec, _error_bits, _load, _Stats

__all__ = ["NetlistEvaluator", "netlist_spec", "c_source", "LANES", "GATE_EXPRESSIONS"]

#: Operand pairs per vector of words (8 x 64 bits).
LANES = 512
_WORDS = LANES // 64

#: Each single-bit cell as a C expression of its input words (``uint64_t`` or the vector type),
#: ``{0}``, ``{1}`` ... standing for the inputs in the order of a netlist's gate tuples
#: (A, B, then C or S, then D).
GATE_EXPRESSIONS = {
    "$_BUF_": "{0}",
    "$_NOT_": "~{0}",
    "$_AND_": "{0} & {1}",
    "$_NAND_": "~({0} & {1})",
    "$_OR_": "{0} | {1}",
    "$_NOR_": "~({0} | {1})",
    "$_XOR_": "{0} ^ {1}",
    "$_XNOR_": "~({0} ^ {1})",
    "$_ANDNOT_": "{0} & ~{1}",
    "$_ORNOT_": "{0} | ~{1}",
    "$_MUX_": "({0} & ~{2}) | ({1} & {2})",
    "$_NMUX_": "~(({0} & ~{2}) | ({1} & {2}))",
    "$_AOI3_": "~(({0} & {1}) | {2})",
    "$_OAI3_": "~(({0} | {1}) & {2})",
    "$_AOI4_": "~(({0} & {1}) | ({2} & {3}))",
    "$_OAI4_": "~(({0} | {1}) & ({2} | {3}))",
}

#: Rows ``a`` x values ``b`` whose statistics one set of 64-bit block sums takes: 2^14 pairs,
#: the block of the graph kernels (sums of |e| < 2^46 cannot overflow).
_BLOCK_PAIRS = 1 << 14


def netlist_spec(netlist) -> KernelSpec:
    """The :class:`~approx_units.compiled.KernelSpec` of a :class:`~approx_units.verilog_eval.GateNetlist`."""
    return KernelSpec(kind=netlist.kind, a_width=len(netlist.a_bits), b_width=len(netlist.b_bits),
                      output_width=len(netlist.o_bits), signed=bool(netlist.signed),
                      frac_bits=int(netlist.frac_bits))


def _transpose(rows: int) -> str:
    """The unrolled in-place bit transpose of ``W R[64]`` whose rows from ``rows`` up are zero.

    Afterwards bit ``j`` of word ``k`` of ``R[l]`` is bit ``l`` of word ``k`` of the original
    ``R[j]``. The rows from ``rows`` up are never read (they need not be set), and operations
    on rows known to be zero are left out.
    """
    nonzero = [index < rows for index in range(64)]
    lines = []
    shift, mask = 32, (1 << 32) - 1
    while shift:
        for k in range(64):
            if k & shift:
                continue
            high = k | shift
            if not nonzero[k] and not nonzero[high]:
                continue
            if not nonzero[high]:
                lines.append(f"R[{high}] = (R[{k}] >> {shift}) & {mask:#x}ull; R[{k}] &= {mask:#x}ull;")
            elif not nonzero[k]:
                lines.append(f"R[{k}] = (R[{high}] & {mask:#x}ull) << {shift}; R[{high}] &= ~{mask:#x}ull;")
            else:
                lines.append(f"{{ const W t = ((R[{k}] >> {shift}) ^ R[{high}]) & {mask:#x}ull; "
                             f"R[{k}] ^= t << {shift}; R[{high}] ^= t; }}")
            nonzero[k] = nonzero[high] = True
        shift >>= 1
        mask ^= mask << shift
    lines += [f"R[{index}] = zero;" for index in range(64) if not nonzero[index]]
    return "\n    ".join(lines)


def _depth_first(netlist) -> list:
    """The gates in depth-first post-order from the output bits (LSB first).

    Yosys's order, like any level-by-level topological order, keeps most nets of
    a wide circuit alive at once; each gate placed right after its inputs keeps
    few vectors live, so the compiler spills far fewer of them to the stack.
    """
    producer = {output: (cell_type, inputs, output) for cell_type, inputs, output in netlist.gates}
    placed, order = set(), []
    for root in netlist.o_bits:
        stack = [(root, False)]
        while stack:
            net, expanded = stack.pop()
            if isinstance(net, str) or net in placed or net not in producer:
                continue
            if expanded:
                placed.add(net)
                order.append(producer[net])
                continue
            stack.append((net, True))
            stack.extend((n, False) for n in reversed(producer[net][1]))
    return order


class _Gates:
    """The gate statements of a netlist, with each net's C name and whether it reads ``a`` or ``b``."""

    def __init__(self, netlist):
        self.netlist = netlist
        self.a_index = {net: i for i, net in enumerate(netlist.a_bits) if not isinstance(net, str)}
        self.b_index = {net: i for i, net in enumerate(netlist.b_bits) if not isinstance(net, str)}
        self.depends = {**{net: frozenset("a") for net in self.a_index},
                        **{net: frozenset("b") for net in self.b_index}}
        for _, inputs, output in netlist.gates:
            self.depends[output] = frozenset().union(*(self.depends.get(n, frozenset()) for n in inputs
                                                      if not isinstance(n, str)))
        self.gates = _depth_first(netlist)

    @staticmethod
    def constant(net: str) -> str:
        # Undriven bits ("x", "z") read as 0, as GateNetlist.model does.
        return "(~(uint64_t)0)" if net == "1" else "((uint64_t)0)"

    def name(self, net) -> str:
        if isinstance(net, str):
            return self.constant(net)
        if net in self.a_index:
            return f"a{self.a_index[net]}"
        if net in self.b_index:
            return f"b{self.b_index[net]}"
        return f"n{net}"

    def statements(self, scalar_b_from: int | None) -> tuple[list, list]:
        """``(statements of the gates that read no bit of b, the others)``, in evaluation order.

        With ``scalar_b_from`` (exhaustive blocks), the bits of ``a`` and those of ``b`` from
        that one up are ``uint64_t`` words, and so is every gate that reads only such words;
        otherwise (given pairs) every net is a vector.
        """
        scalar = set()
        if scalar_b_from is not None:
            scalar = set(self.a_index) | {n for n, i in self.b_index.items() if i >= scalar_b_from}
        a_only, others = [], []
        for cell_type, inputs, output in self.gates:
            expression = GATE_EXPRESSIONS[cell_type].format(*(self.name(n) for n in inputs))
            if scalar_b_from is not None and all(isinstance(n, str) or n in scalar for n in inputs):
                scalar.add(output)
            kind = "uint64_t" if output in scalar else "W"
            if kind == "W" and all(isinstance(n, str) for n in inputs):
                expression = f"zero | ({expression})"       # constant inputs only: broadcast
            (others if "b" in self.depends[output] else a_only).append(f"const {kind} n{output} = {expression};")
        return a_only, others

    def outputs(self) -> str:
        """``R[j] = output bit j`` (broadcast when it is a scalar word)."""
        return " ".join(f"R[{j}] = zero | {self.name(net)};" for j, net in enumerate(self.netlist.o_bits))


def c_source(netlist, spec: KernelSpec | None = None) -> str:
    """The bit-sliced C translation unit of a gate netlist and the error statistics of ``spec``.

    It defines ``model_pairs``, ``eval_pairs`` and ``eval_range`` with the arguments and
    results of :func:`approx_units.compiled.c_source`'s.

    Raises
    ------
    ValueError
        If the output is wider than 64 bits or a cell type has no C form.
    """
    spec = spec or netlist_spec(netlist)
    width_o = len(netlist.o_bits)
    if width_o > 64:
        raise ValueError(f"the bit-sliced engine takes outputs of at most 64 bits, not {width_o}")
    for cell_type, _, _ in netlist.gates:
        if cell_type not in GATE_EXPRESSIONS:
            raise ValueError(f"no C form for cell type {cell_type!r}")
    gates = _Gates(netlist)
    wide = _error_bits(spec) > 46
    stats = _Stats(spec, wide)
    parts = len(stats.parts)
    sep = "\n    "
    range_a, range_rest = gates.statements(scalar_b_from=9)
    pairs_a, pairs_rest = gates.statements(scalar_b_from=None)
    a_width, b_width = len(netlist.a_bits), len(netlist.b_bits)
    mask_a, mask_b = (1 << a_width) - 1, (1 << b_width) - 1
    transpose = _transpose(width_o)
    transpose_in = _transpose(64)

    # Exhaustive blocks: pair p of the block has b = c0 + p, c0 a multiple of 512.
    # Bits 0..2 of p pick the word, bits 3..8 the bit within it.
    lane_constants = []
    for bit in range(min(b_width, 9)):
        if bit < 3:
            words = ["~0ull" if (k >> bit) & 1 else "0ull" for k in range(_WORDS)]
        else:
            pattern = sum(1 << lane for lane in range(64) if (lane >> (bit - 3)) & 1)
            words = [f"{pattern:#x}ull"] * _WORDS
        lane_constants.append(f"const W b{bit} = {{{', '.join(words)}}};")
    high_b = [f"const uint64_t b{bit} = -(uint64_t)((c0 >> {bit}) & 1);" for bit in range(9, b_width)]
    a_words = [f"const uint64_t a{bit} = -(uint64_t)(((uint64_t)aval >> {bit}) & 1);" for bit in range(a_width)]
    # Given pairs: word k of R[l] after the transpose is bit l of the values of pairs 64k..64k+63,
    # so the values are laid out with pair p at word p & 7, row p >> 3 (the order of the results).
    unpack_a = [f"const W a{bit} = A[{bit}];" for bit in range(a_width)]
    unpack_b = [f"const W b{bit} = B[{bit}];" for bit in range(b_width)]
    excluded_pairs = "for (int64_t i = 0; i < n; i++) excluded += vb[i] == 0;" if spec.kind == "div" else ""
    excluded_range = "excluded = (b_lo <= 0 && 0 < b_hi) ? (a_hi - a_lo) : 0;" if spec.kind == "div" else ""
    block_rows = max(1, _BLOCK_PAIRS // LANES)

    return f"""{_PRELUDE}
#include <string.h>
typedef uint64_t W __attribute__((vector_size({8 * _WORDS}), aligned({8 * _WORDS})));
{_TOTALS}

/* R[j]: output bit j of the block's pairs -> R as uint64_t[512], the output of pair p at p. */
static inline void transpose_out(W *R) {{
    const W zero = {{0}};
    {transpose}
}}

/* The operand values (pair p at index p of uint64_t[512]) -> R[i]: bit i of every pair. */
static inline void transpose_in(W *R) {{
    const W zero = {{0}};
    {transpose_in}
}}

static inline void load_values(W *R, const int64_t *values, int64_t count, uint64_t mask) {{
  uint64_t *flat = (uint64_t *)R;
  for (int64_t p = 0; p < count; p++) flat[p] = (uint64_t)values[p] & mask;
  for (int64_t p = count; p < {LANES}; p++) flat[p] = 0;
  transpose_in(R);
}}

static inline void evaluate_block(const W *A, const W *B, W *R) {{
    const W zero = {{0}};
    {sep.join(unpack_a)}
    {sep.join(unpack_b)}
    {sep.join(pairs_a)}
    {sep.join(pairs_rest)}
    {gates.outputs()}
    transpose_out(R);
}}

void model_pairs(const uint64_t *pa, const uint64_t *pb, int64_t n, uint64_t *out) {{
  W A[64], B[64], R[64];
  for (int64_t start = 0; start < n; start += {LANES}) {{
    const int64_t count = n - start < {LANES} ? n - start : {LANES};
    load_values(A, (const int64_t *)pa + start, count, {mask_a}ull);
    load_values(B, (const int64_t *)pb + start, count, {mask_b}ull);
    evaluate_block(A, B, R);
    memcpy(out + start, R, sizeof(uint64_t) * count);
  }}
}}

void eval_pairs(const int64_t *va, const int64_t *vb, int64_t n, uint64_t *out) {{
  total_t t[{parts}] = {{0}};
  int64_t excluded = 0;
  {excluded_pairs}
  W A[64], B[64], R[64];
  const uint64_t *flat = (const uint64_t *)R;
  for (int64_t block = 0; block < n; block += {_BLOCK_PAIRS}) {{
    const int64_t stop = n - block < {_BLOCK_PAIRS} ? n : block + {_BLOCK_PAIRS};
    {stats.declarations()}
    for (int64_t start = block; start < stop; start += {LANES}) {{
      const int64_t count = stop - start < {LANES} ? stop - start : {LANES};
      load_values(A, va + start, count, {mask_a}ull);
      load_values(B, vb + start, count, {mask_b}ull);
      evaluate_block(A, B, R);
      {stats.pragma()}
      for (int64_t p = 0; p < count; p++) {{
        const int64_t aval = va[start + p], bval = vb[start + p];
        const uint64_t output = flat[p];
        {stats.per_pair("output")}
      }}
    }}
    {stats.merge()}
  }}
  store_totals(t, {parts}, excluded, out);
}}

/* The statistics of the outputs o[j] of the pairs (aval, b0 + j), j < n, added to t. */
static __attribute__((noinline)) void range_stats(total_t *t, int64_t aval, int64_t b0, const uint64_t *o,
                                                  int64_t n) {{
  {stats.declarations()}
  {stats.pragma()}
  for (int64_t j = 0; j < n; j++) {{
    const int64_t bval = b0 + j;
    const uint64_t output = o[j];
    {stats.per_pair("output")}
  }}
  {stats.merge()}
}}

void eval_range(int64_t a_lo, int64_t a_hi, int64_t b_lo, int64_t b_hi, uint64_t *out) {{
  total_t t[{parts}] = {{0}};
  int64_t excluded = 0;
  {excluded_range}
  const W zero = {{0}};
  {sep.join(lane_constants)}
  uint64_t *results = aligned_alloc(64, sizeof(uint64_t) * {LANES * block_rows});
  const int64_t first = b_lo & ~(int64_t){LANES - 1};
  for (int64_t chunk = first; chunk < b_hi; chunk += {LANES * block_rows}) {{
    const int64_t chunk_end = chunk + {LANES * block_rows} < b_hi ? chunk + {LANES * block_rows} : b_hi;
    const int64_t j_lo = b_lo > chunk ? b_lo - chunk : 0, j_hi = chunk_end - chunk;
    for (int64_t aval = a_lo; aval < a_hi; aval++) {{
      {sep.join(a_words)}
      {sep.join(range_a)}
      for (int64_t c0 = chunk; c0 < chunk_end; c0 += {LANES}) {{
        W *R = (W *)(results + (c0 - chunk));
        {sep.join(high_b)}
        {sep.join(range_rest)}
            {gates.outputs()}
        transpose_out(R);
      }}
      range_stats(t, aval, chunk + j_lo, results + j_lo, j_hi - j_lo);
    }}
  }}
  free(results);
  store_totals(t, {parts}, excluded, out);
}}
"""


class NetlistEvaluator(Evaluator):
    """A gate netlist compiled bit-sliced with its error statistics (see the module's description).

    Parameters
    ----------
    netlist : GateNetlist
        A circuit read by :func:`~approx_units.verilog_eval.load_verilog`.

    Attributes
    ----------
    netlist : GateNetlist
    spec : KernelSpec
        As :func:`netlist_spec` gives it.

    Raises
    ------
    CompilerUnavailable
        If there is no C compiler, or it cannot compile the kernel.
    ValueError
        If the output is wider than 64 bits.
    """

    def __init__(self, netlist):
        self.netlist, self.graph = netlist, None
        self.spec = netlist_spec(netlist)
        self.kind = self.spec.kind
        self.source = c_source(netlist, self.spec)
        self._library = _load(self.source)
