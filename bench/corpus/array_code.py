"""Realistic numerical Python over lists and arrays: the second part of the corpus.

Loops over sequences and NumPy arrays, with the same mix of control flow as
scalar_code.py; the longer solvers are in solver_code.py. Only `math` and
NumPy are imported, so this project and TensorFlow (in its own environment)
load the very same source.

`CASES` gives arguments for each function (see scalar_code.py).
"""

import math

import numpy as np

__all__ = ["CASES"]


def running_mean(values, window):
    out = []
    acc = 0.0
    for i, v in enumerate(values):
        acc += v
        if i >= window:
            acc -= values[i - window]
        out.append(acc / min(i + 1, window))
    return out


def argmax_first(xs):
    best_i, best = -1, None
    for i, x in enumerate(xs):
        if best is None or x > best:
            best_i, best = i, x
    return best_i


def softmax(x):
    """Shift by the maximum first so exp never overflows."""
    shifted = x - np.max(x)
    e = np.exp(shifted)
    return e / np.sum(e)


def tanh_until_small(x):
    """The tf.function guide's loop: squash until the sum is at most 1."""
    while np.sum(x) > 1:
        x = np.tanh(x)
    return x


def power_iteration(a, iters=50, tol=1e-9):
    v = np.ones(a.shape[0]) / math.sqrt(a.shape[0])
    eig = 0.0
    for _ in range(iters):
        w = a @ v
        norm = np.linalg.norm(w)
        if norm == 0:
            return 0.0, v
        v = w / norm
        new_eig = float(v @ a @ v)
        if abs(new_eig - eig) < tol:
            eig = new_eig
            break
        eig = new_eig
    return eig, v


def relu_layer(x, w, b, leaky=False):
    z = x @ w + b
    if leaky:
        return np.where(z > 0, z, 0.01 * z)
    return np.maximum(z, 0)


def normalize_rows(m, eps=1e-12):
    rows = []
    for row in m:
        norm = math.sqrt(sum(v * v for v in row))
        rows.append([v / norm for v in row] if norm > eps else list(row))
    return rows


def moving_extrema(xs):
    lo = hi = xs[0]
    lows, highs = [], []
    for x in xs:
        lo = x if x < lo else lo
        hi = x if x > hi else hi
        lows.append(lo)
        highs.append(hi)
    return lows, highs


def histogram(values, bins, lo, hi):
    counts = [0] * bins
    width = (hi - lo) / bins
    for v in values:
        if v < lo or v >= hi:
            continue
        k = int((v - lo) / width)
        counts[min(k, bins - 1)] += 1
    return counts


def kmeans_1d(xs, k, iters=20):
    """Lloyd's algorithm on a line, with an empty-cluster guard."""
    xs = sorted(xs)
    centers = [xs[i * (len(xs) - 1) // max(k - 1, 1)] for i in range(k)]
    for _ in range(iters):
        groups = [[] for _ in range(k)]
        for x in xs:
            best = min(range(k), key=lambda c: abs(x - centers[c]))
            groups[best].append(x)
        moved = False
        for c in range(k):
            if not groups[c]:
                continue
            mean = sum(groups[c]) / len(groups[c])
            if abs(mean - centers[c]) > 1e-12:
                moved = True
            centers[c] = mean
        if not moved:
            break
    return centers


def matrix_power_int(m, p):
    """Square-and-multiply on a NumPy matrix."""
    result = np.eye(m.shape[0], dtype=m.dtype)
    base = m
    while p > 0:
        if p & 1:
            result = result @ base
        base = base @ base
        p >>= 1
    return result


def cumulative_returns(prices):
    if len(prices) < 2:
        return []
    out = []
    total = 1.0
    prev = prices[0]
    for p in prices[1:]:
        if prev <= 0:
            out.append(float("nan"))
        else:
            total *= p / prev
            out.append(total - 1.0)
        prev = p
    return out


def polyfit_residual(xs, ys, degree):
    coeffs = np.polyfit(np.asarray(xs), np.asarray(ys), degree)
    worst = 0.0
    for x, y in zip(xs, ys):
        r = abs(np.polyval(coeffs, x) - y)
        worst = r if r > worst else worst
    return worst


def pairwise_close(points, radius):
    pairs = []
    for i in range(len(points)):
        xi, yi = points[i]
        for j in range(i + 1, len(points)):
            xj, yj = points[j]
            if abs(xi - xj) > radius or abs(yi - yj) > radius:
                continue
            if (xi - xj) ** 2 + (yi - yj) ** 2 <= radius * radius:
                pairs.append((i, j))
    return pairs


def dot_product_checked(a, b):
    if len(a) != len(b):
        raise ValueError("length mismatch")
    total = 0.0
    for x, y in zip(a, b):
        total += x * y
    return total


def batch_statistics(batches):
    """Mean and variance per batch, skipping empty ones (Welford)."""
    stats = {}
    for name, values in batches.items():
        if not values:
            continue
        n, mean, m2 = 0, 0.0, 0.0
        for v in values:
            n += 1
            delta = v - mean
            mean += delta / n
            m2 += delta * (v - mean)
        stats[name] = (mean, m2 / n if n > 1 else 0.0)
    return stats


_RNG = np.random.default_rng(0)
_SPD = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])

CASES = {
    "running_mean": [([1.0, 2.0, 3.0, 4.0, 5.0], 2)],
    "argmax_first": [([3, 1, 4, 1, 5, 9, 2, 6],), ([],)],
    "softmax": [(np.array([1.0, 2.0, 3.0]),)],
    "tanh_until_small": [(np.linspace(0.5, 0.9, 5),)],
    "power_iteration": [(_SPD,)],
    "relu_layer": [(_RNG.normal(size=(2, 3)), _RNG.normal(size=(3, 4)), np.zeros(4), True)],
    "normalize_rows": [([[3.0, 4.0], [0.0, 0.0]],)],
    "moving_extrema": [([3, 1, 4, 1, 5, 9, 2],)],
    "histogram": [([0.1, 0.5, 0.9, 1.5, -0.2, 0.55], 4, 0.0, 1.0)],
    "kmeans_1d": [([1.0, 1.1, 0.9, 5.0, 5.2, 4.8, 9.0], 3)],
    "matrix_power_int": [(np.array([[1, 1], [1, 0]]), 10)],
    "cumulative_returns": [([100.0, 110.0, 99.0, 120.0],), ([1.0],)],
    "polyfit_residual": [([0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 2.0, 5.0], 1)],
    "pairwise_close": [([(0.0, 0.0), (0.5, 0.5), (3.0, 3.0), (3.2, 2.9)], 1.0)],
    "dot_product_checked": [([1.0, 2.0], [3.0, 4.0])],
    "batch_statistics": [({"a": [1.0, 2.0, 3.0], "b": [], "c": [5.0]},)],
}
