"""Every benchmark kernel's golden run against a reference written differently
(numpy, sorted(), plain loops without the kernel's structure)."""

import copy

import numpy as np
import pytest

from benchmarks.kernels import KERNEL_NAMES, load


def _vsum(a, n):
    return int(np.sum(np.array(a[:n], dtype=np.int64))), {}


def _dot16(a, b, n):
    return int(np.dot(np.array(a[:n], dtype=object), np.array(b[:n], dtype=object))), {}


def _gsumif(a, n):
    d = np.array(a[:n], dtype=np.int64)
    return int(np.where(d >= 0, d * d, -d).sum()), {}


def _if_loop(a, n):
    t = np.array(a[:n], dtype=np.int64) * 5
    return int(t[t > 10].sum()), {}


def _stream_proc(code, x, w, n):
    acc = 0
    for op, v in zip(code[:n], x[:n]):
        acc = {0: lambda: acc + v, 1: lambda: acc - v, 2: lambda: acc + v * w,
               3: lambda: (acc // 2) + v}[op]()
    return acc, {}


def _conv3x3(img, k, out):
    image = np.array(img, dtype=np.int64).reshape(8, 8)
    kernel = np.array(k, dtype=np.int64).reshape(3, 3)
    result = np.array([[np.sum(image[y:y + 3, x:x + 3] * kernel) for x in range(6)] for y in range(6)])
    return None, {"out": result.reshape(-1).tolist()}


def _conv3x3_linebuf(img, k, out):
    image = np.array(img, dtype=np.int64).reshape(16, 16)
    kernel = np.array(k, dtype=np.int64).reshape(3, 3)
    result = np.array([[np.sum(image[y:y + 3, x:x + 3] * kernel) for x in range(14)] for y in range(14)])
    return None, {"out": result.reshape(-1).tolist()}


def _matvec(m, v, out, rows):
    product = np.array(m, dtype=np.int64).reshape(8, 8) @ np.array(v, dtype=np.int64)
    return None, {"out": product[:rows].tolist() + out[rows:]}


def _fir(x, h, y, n):
    full = np.convolve(np.array(x, dtype=object), np.array(h, dtype=object))
    return None, {"y": [int(v) for v in full[:n]] + y[n:]}


def _argmax(a, n):
    prefix = a[:max(n, 1)]
    index = int(np.argmax(prefix))   # numpy returns the first of equal maxima
    return (index, prefix[index]), {}


def _find_first(a, n, t):
    above = [i for i, v in enumerate(a[:n]) if v > t]
    return (above[0] if above else n), {}


def _histogram(x, h, n):
    counts = np.bincount(np.array(x[:n], dtype=np.int64), minlength=16)
    return None, {"h": (np.array(h) + counts).tolist()}


def _weighted_histogram(x, w, h, n):
    sums = np.bincount(np.array(x[:n], dtype=np.int64), weights=np.array(w[:n], dtype=np.float64),
                       minlength=16)
    return None, {"h": [int(a + round(b)) for a, b in zip(h, sums)]}


def _prefix_sum(a, n):
    return None, {"a": np.cumsum(np.array(a[:n], dtype=np.int64)).tolist() + a[n:] if n else a}


def _insertion_sort(a, n):
    return None, {"a": sorted(a[:n]) + a[n:]}


def _csr_spmv(row, col, val, x, y, rows):
    dense = np.zeros((8, 8), dtype=np.int64)
    for i in range(8):
        for k in range(row[i], row[i + 1]):
            dense[i, col[k]] = val[k]
    product = dense @ np.array(x, dtype=np.int64)
    return None, {"y": product[:rows].tolist() + y[rows:]}


def _bipartite_matching(edges, vtx, m):
    partner = {v: p for v, p in enumerate(vtx) if p != -1}
    count = 0
    for e in range(m):
        u, v = edges[2 * e], edges[2 * e + 1]
        if u not in partner and v not in partner:
            partner[u], partner[v] = v, u
            count += 1
    return count, {"vtx": [partner.get(v, -1) for v in range(32)]}


def _list_walk(nxt, val, head):
    visited, node = [], head
    while node != 64:
        visited.append(node)
        node = nxt[node]
    return sum(val[i] for i in visited), {}


def _collatz(x0):
    x, steps = x0, 0
    while x != 1 and steps < 1000:
        x, steps = (3 * x + 1 if x % 2 else x // 2), steps + 1
    return steps, {}


def _matmul(a, b, c):
    product = np.array(a, dtype=np.int64).reshape(8, 8) @ np.array(b, dtype=np.int64).reshape(8, 8)
    return None, {"c": product.reshape(-1).tolist()}


def _trmv(m, x, y, n):
    lower = np.tril(np.array(m, dtype=np.int64).reshape(8, 8))
    product = lower @ np.array(x, dtype=np.int64)
    return None, {"y": product[:n].tolist() + y[n:]}


def _row_scan(a, out, gain):
    out = list(out)
    for r in range(16):
        row = a[r * 16:(r + 1) * 16]
        length = row.index(0) if 0 in row else 16
        out[r * 16:r * 16 + length] = [value * value * gain for value in row[:length]]
    return None, {"out": out}


def _wrapped(values, bits):
    """``values`` in two's complement of ``bits`` (the kernels' signed accumulators wrap)."""
    return [(int(v) + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1)) for v in values]


def _matmul_acc(a, b, c):
    product = np.array(a, dtype=np.int64).reshape(8, 8) @ np.array(b, dtype=np.int64).reshape(8, 8)
    return None, {"c": _wrapped(np.array(c, dtype=np.int64) + product.reshape(-1), 24)}


def _matmul_acc_rows(a, b, c, n):
    product = np.array(a, dtype=np.int64).reshape(16, 16) @ np.array(b, dtype=np.int64).reshape(16, 16)
    c = np.array(c, dtype=np.int64)
    c[:n * 16] += product.reshape(-1)[:n * 16]
    return None, {"c": _wrapped(c, 24)}


def _row_update(w, x, y):
    product = np.array(w, dtype=np.int64).reshape(16, 8) @ np.array(x, dtype=np.int64)
    return None, {"y": _wrapped(np.array(y, dtype=np.int64) + product, 20)}


def _row_first_match(a, out, key, rows, n):
    out = list(out)
    for r in range(rows):
        row = a[r * 8:r * 8 + n]
        if key in row:
            out[r] = row.index(key)
    return None, {"out": out}


def _csr_rows(row, val, total, count, rows):
    total, count = list(total), list(count)
    for i in range(rows):
        total[i] = int(np.sum(np.array(val[row[i]:row[i + 1]], dtype=np.int64)))
        count[i] = row[i + 1] - row[i]
    return None, {"total": total, "count": count}


REFERENCES = {
    "vsum": _vsum, "dot16": _dot16, "gsumif": _gsumif, "if_loop": _if_loop,
    "stream_proc": _stream_proc, "conv3x3": _conv3x3, "matvec": _matvec, "fir": _fir,
    "argmax": _argmax, "find_first_while": _find_first, "find_first_break": _find_first,
    "histogram": _histogram, "weighted_histogram": _weighted_histogram, "prefix_sum": _prefix_sum,
    "insertion_sort": _insertion_sort, "csr_spmv": _csr_spmv,
    "bipartite_matching": _bipartite_matching, "list_walk": _list_walk, "collatz": _collatz,
    "matmul": _matmul, "trmv": _trmv, "conv3x3_linebuf": _conv3x3_linebuf, "row_scan": _row_scan,
    "matmul_acc": _matmul_acc, "row_update": _row_update,
    "row_first_match": _row_first_match, "csr_rows": _csr_rows, "matmul_acc_rows": _matmul_acc_rows,
}


def test_every_kernel_has_a_reference():
    assert set(REFERENCES) == set(KERNEL_NAMES)


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_golden_run_matches_reference(name):
    kernel, examples = load(name)
    assert kernel.name == name
    assert len(examples) >= 5
    typed = kernel.analyze()
    for example in examples:
        arguments = copy.deepcopy(example)
        expected_return, expected_arrays = REFERENCES[name](**copy.deepcopy(example))
        result = kernel(**arguments)
        assert result == expected_return, (name, example)
        for param in typed.params:
            if param.kind == "array":
                want = expected_arrays.get(param.name, example[param.name])
                assert arguments[param.name] == want, (name, param.name)
        # The examples exercise the hardware's arithmetic, not its wrapping: the
        # reference computes with unbounded integers.
        _, _, overflows = kernel.golden_model().run_checked(kernel.golden_model().bind((), example))
        assert overflows == [], [o.to_text() for o in overflows]


def test_exit_kernels_exit_first_middle_and_never():
    for name in ("find_first_while", "find_first_break"):
        _, examples = load(name)
        exits = {_find_first(**example)[0] for example in examples}
        assert {0, 64} <= exits and any(0 < e < 63 for e in exits), name
