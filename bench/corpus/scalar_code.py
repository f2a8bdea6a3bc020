"""Realistic numerical Python over scalars: the first part of the conversion corpus.

Plain Python the way people write numerical code: if/elif/else, while and
for loops with break, continue and early return, and/or/not, conditional
expressions, nested functions, comprehensions, loop `else` clauses, asserts
and list appends. Only `math` is imported, so this project and TensorFlow
(in its own environment) load the very same source.

`CASES` gives arguments for each function: the conversion benchmark only
converts them; the converter's tests may call them to compare Python mode.
"""

import math

__all__ = ["CASES"]


def clip_scalar(x, lo, hi):
    """Clamp x into [lo, hi]."""
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x


def sign(x):
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


def collatz_steps(n):
    """Number of Collatz steps from n down to 1."""
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def gcd(a, b):
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


def is_prime(n):
    if n < 2:
        return False
    if n < 4:
        return True
    if n % 2 == 0 or n % 3 == 0:
        return False
    k = 5
    while k * k <= n:
        if n % k == 0 or n % (k + 2) == 0:
            return False
        k += 6
    return True


def count_primes(limit):
    """Trial division with an early break per candidate."""
    count = 0
    for n in range(2, limit):
        for d in range(2, int(math.sqrt(n)) + 1):
            if n % d == 0:
                break
        else:
            count += 1
    return count


def count_primes_flag(limit):
    """The same count with a flag instead of for/else (TensorFlow has no for/else)."""
    count = 0
    for n in range(2, limit):
        prime = True
        for d in range(2, int(math.sqrt(n)) + 1):
            if n % d == 0:
                prime = False
                break
        if prime:
            count += 1
    return count


def affine(x, scale=2.0, offset=1.0):
    """One multiply-add: the cheapest call worth converting."""
    if scale == 1.0:
        return x + offset
    return x * scale + offset


def fizzbuzz_counts(n):
    fizz = buzz = fizzbuzz = plain = 0
    for i in range(1, n + 1):
        if i % 15 == 0:
            fizzbuzz += 1
        elif i % 3 == 0:
            fizz += 1
        elif i % 5 == 0:
            buzz += 1
        else:
            plain += 1
    return fizz, buzz, fizzbuzz, plain


def nested_loop_sum(n):
    total = 0
    for i in range(n):
        for j in range(i):
            if (i + j) % 3 == 0:
                continue
            total += i * j
    return total


def bisect_root(f, lo, hi, tol=1e-10, max_iter=200):
    """Root of f in [lo, hi] by bisection; f(lo) and f(hi) differ in sign."""
    flo = f(lo)
    assert flo * f(hi) <= 0, "the interval must bracket a root"
    for _ in range(max_iter):
        mid = 0.5 * (lo + hi)
        fmid = f(mid)
        if fmid == 0 or hi - lo < tol:
            return mid
        if (fmid < 0) == (flo < 0):
            lo, flo = mid, fmid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def newton_sqrt(a, tol=1e-12):
    if a < 0:
        raise ValueError("negative input")
    if a == 0:
        return 0.0
    x = a if a > 1 else 1.0
    while True:
        nxt = 0.5 * (x + a / x)
        if abs(nxt - x) < tol * x:
            break
        x = nxt
    return nxt


def horner(coeffs, x):
    result = 0.0
    for c in coeffs:
        result = result * x + c
    return result


def bubble_sort(xs):
    xs = list(xs)
    n = len(xs)
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if xs[j] > xs[j + 1]:
                xs[j], xs[j + 1] = xs[j + 1], xs[j]
                swapped = True
        if not swapped:
            break
    return xs


def binary_search(xs, target):
    lo, hi = 0, len(xs) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if xs[mid] == target:
            return mid
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


def trapezoid(f, a, b, n=100):
    h = (b - a) / n
    total = 0.5 * (f(a) + f(b))
    for k in range(1, n):
        total += f(a + k * h)
    return total * h


def simpson(f, a, b, n=100):
    if n % 2:
        n += 1
    h = (b - a) / n
    total = f(a) + f(b)
    for k in range(1, n):
        weight = 4 if k % 2 else 2
        total += weight * f(a + k * h)
    return total * h / 3


def euler_ode(rate, y0, t_end, dt=0.01):
    """Explicit Euler for y' = rate(t, y), stopping at a blow-up."""
    t, y = 0.0, y0
    while t < t_end:
        dy = rate(t, y)
        if not math.isfinite(dy):
            return None
        y = y + dt * dy
        t += dt
    return y


def rk4_step(f, t, y, h):
    def stage(dt, dy):
        return f(t + dt, y + dy)

    k1 = stage(0.0, 0.0)
    k2 = stage(h / 2, h * k1 / 2)
    k3 = stage(h / 2, h * k2 / 2)
    k4 = stage(h, h * k3)
    return y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6


def piecewise_linear(x, knots, values):
    if x <= knots[0]:
        return values[0]
    for i in range(1, len(knots)):
        if x <= knots[i]:
            t = (x - knots[i - 1]) / (knots[i] - knots[i - 1])
            return values[i - 1] + t * (values[i] - values[i - 1])
    return values[-1]


def gradient_descent(grad, x0, lr=0.1, tol=1e-8, max_steps=1000):
    x = x0
    steps = 0
    while steps < max_steps:
        g = grad(x)
        if abs(g) < tol:
            break
        x = x - lr * g
        steps += 1
    else:
        return None
    return x, steps


def sieve(n):
    is_p = [True] * (n + 1)
    is_p[0] = False
    if n >= 1:
        is_p[1] = False
    i = 2
    while i * i <= n:
        if is_p[i]:
            for j in range(i * i, n + 1, i):
                is_p[j] = False
        i += 1
    return [k for k in range(n + 1) if is_p[k]]


def logistic_map_orbit(r, x0, n, burn_in=100):
    x = x0
    for _ in range(burn_in):
        x = r * x * (1 - x)
    orbit = []
    for _ in range(n):
        x = r * x * (1 - x)
        if orbit and abs(orbit[-1] - x) < 1e-12:
            break
        orbit.append(x)
    return orbit


def mandelbrot_escape(c_re, c_im, max_iter=100):
    z_re = z_im = 0.0
    for i in range(max_iter):
        z_re, z_im = z_re * z_re - z_im * z_im + c_re, 2 * z_re * z_im + c_im
        if z_re * z_re + z_im * z_im > 4.0:
            return i
    return max_iter


def classify_triangle(a, b, c):
    a, b, c = sorted((a, b, c))
    if a <= 0 or a + b <= c:
        return "invalid"
    if a == b == c:
        return "equilateral"
    if a == b or b == c:
        kind = "isosceles"
    else:
        kind = "scalene"
    right = abs(a * a + b * b - c * c) < 1e-9
    return kind + (" right" if right else "")


def early_stopping(losses, patience=3, min_delta=1e-4):
    best = float("inf")
    wait = 0
    for epoch, loss in enumerate(losses):
        if loss < best - min_delta:
            best = loss
            wait = 0
        else:
            wait += 1
            if wait >= patience:
                return epoch, best
    return len(losses) - 1, best


def _square(x):
    return x * x


def _quad_rate(t, y):
    return -0.5 * y + math.sin(t)


def _quad_grad(x):
    return 2.0 * (x - 3.0)


CASES = {
    "clip_scalar": [(5, 0, 3), (-1, 0, 3), (2, 0, 3)],
    "sign": [(3,), (-2.5,), (0,)],
    "collatz_steps": [(27,), (1,)],
    "gcd": [(48, 18), (-7, 21), (0, 5)],
    "is_prime": [(1,), (2,), (97,), (91,)],
    "count_primes": [(100,)],
    "count_primes_flag": [(100,)],
    "affine": [(3.0,), (3.0, 1.0)],
    "fizzbuzz_counts": [(100,)],
    "nested_loop_sum": [(30,)],
    "bisect_root": [(lambda x: x * x - 2.0, 0.0, 2.0)],
    "newton_sqrt": [(2.0,), (0.0,), (0.25,)],
    "horner": [([1.0, -2.0, 3.0], 2.0)],
    "bubble_sort": [([5, 2, 9, 1, 5, 6],), ([1, 2, 3],)],
    "binary_search": [([1, 3, 5, 7, 9, 11], 7), ([1, 3, 5], 4)],
    "trapezoid": [(_square, 0.0, 1.0)],
    "simpson": [(_square, 0.0, 1.0, 11)],
    "euler_ode": [(_quad_rate, 1.0, 1.0)],
    "rk4_step": [(_quad_rate, 0.0, 1.0, 0.1)],
    "piecewise_linear": [(0.5, [0.0, 1.0, 2.0], [0.0, 10.0, 0.0]), (3.0, [0.0, 1.0], [1.0, 2.0])],
    "gradient_descent": [(_quad_grad, 0.0), (_quad_grad, 0.0, 0.1, 1e-8, 3)],
    "sieve": [(50,)],
    "logistic_map_orbit": [(3.2, 0.5, 10), (2.5, 0.5, 10)],
    "mandelbrot_escape": [(0.0, 0.0), (1.0, 1.0)],
    "classify_triangle": [(3, 4, 5), (2, 2, 2), (1, 1, 3), (2, 2, 3)],
    "early_stopping": [([1.0, 0.5, 0.4, 0.41, 0.42, 0.43, 0.3],)],
}
