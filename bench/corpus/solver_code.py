"""Realistic numerical solvers and simulations: the third part of the corpus.

Longer functions (25-80 lines) over lists and NumPy arrays: elimination,
conjugate gradients, a Kalman filter, adaptive quadrature, a queue
simulation, Brent's root finder, Nelder-Mead. Only `math` and NumPy are
imported, so this project and TensorFlow (in its own environment) load the
very same source.

`CASES` gives arguments for each function (see scalar_code.py).
"""

import math

import numpy as np

__all__ = ["CASES"]


def lu_solve(a, b):
    """Gaussian elimination with partial pivoting on lists of floats."""
    n = len(a)
    m = [list(row) + [rhs] for row, rhs in zip(a, b)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-14:
            raise ValueError("singular matrix")
        if pivot != col:
            m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            factor = m[r][col] / m[col][col]
            if factor == 0:
                continue
            for c in range(col, n + 1):
                m[r][c] -= factor * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        acc = m[r][n]
        for c in range(r + 1, n):
            acc -= m[r][c] * x[c]
        x[r] = acc / m[r][r]
    return x


def conjugate_gradient(a, b, x0=None, tol=1e-10, max_iter=None):
    """Solve a x = b for symmetric positive definite a; report convergence."""
    n = b.shape[0]
    x = np.zeros(n) if x0 is None else np.array(x0, dtype=float)
    max_iter = max_iter or 10 * n
    r = b - a @ x
    p = r.copy()
    rs_old = float(r @ r)
    history = []
    converged = False
    if math.sqrt(rs_old) < tol:
        return x, 0, True, history
    k = 0
    while k < max_iter:
        ap = a @ p
        denom = float(p @ ap)
        if denom <= 0:
            raise ValueError("matrix is not positive definite")
        alpha = rs_old / denom
        x = x + alpha * p
        r = r - alpha * ap
        rs_new = float(r @ r)
        history.append(math.sqrt(rs_new))
        k += 1
        if math.sqrt(rs_new) < tol:
            converged = True
            break
        beta = rs_new / rs_old
        p = r + beta * p
        rs_old = rs_new
    stalled = len(history) > 3 and all(
        abs(history[-i] - history[-i - 1]) < tol for i in range(1, 3)
    )
    if stalled and not converged:
        history.append(float("nan"))
    return x, k, converged, history


def kalman_track(measurements, process_var=1e-3, measure_var=0.25, gate=3.0):
    """A 1-D constant-velocity Kalman filter with outlier gating and divergence checks."""
    if not measurements:
        return [], 0, False
    pos, vel = float(measurements[0]), 0.0
    p_pos, p_vel, p_cross = 1.0, 1.0, 0.0
    track = [pos]
    rejected = 0
    diverged = False
    consecutive = 0
    for step, z in enumerate(measurements[1:], start=1):
        # predict
        pos = pos + vel
        p_pos = p_pos + 2 * p_cross + p_vel + process_var
        p_cross = p_cross + p_vel
        p_vel = p_vel + process_var
        if z is None:
            track.append(pos)
            continue
        innovation = z - pos
        s = p_pos + measure_var
        if abs(innovation) > gate * math.sqrt(s):
            rejected += 1
            consecutive += 1
            if consecutive > 3:
                diverged = True
                break
            track.append(pos)
            continue
        consecutive = 0
        # update
        k_pos = p_pos / s
        k_vel = p_cross / s
        pos = pos + k_pos * innovation
        vel = vel + k_vel * innovation
        p_vel = p_vel - k_vel * p_cross
        p_cross = p_cross - k_pos * p_cross
        p_pos = p_pos - k_pos * p_pos
        if p_pos < 0 or p_vel < 0:
            diverged = True
            break
        track.append(pos)
        if step % 10 == 0 and abs(vel) > 1e6:
            diverged = True
            break
    return track, rejected, diverged


def adaptive_quadrature(f_samples, lo, hi, tol=1e-6, max_depth=20):
    """Adaptive Simpson integration with an explicit stack instead of recursion."""
    def simpson(a, b):
        mid = 0.5 * (a + b)
        fa, fm, fb = f_samples(a), f_samples(mid), f_samples(b)
        return (b - a) / 6.0 * (fa + 4.0 * fm + fb)

    if hi < lo:
        lo, hi = hi, lo
        sign = -1.0
    else:
        sign = 1.0
    if hi == lo:
        return 0.0, 0, True
    total = 0.0
    evaluations = 0
    exact = True
    stack = [(lo, hi, simpson(lo, hi), tol, 0)]
    while stack:
        a, b, whole, local_tol, depth = stack.pop()
        mid = 0.5 * (a + b)
        left = simpson(a, mid)
        right = simpson(mid, b)
        evaluations += 2
        delta = left + right - whole
        if depth >= max_depth:
            exact = False
            total += left + right
        elif abs(delta) <= 15.0 * local_tol:
            total += left + right + delta / 15.0
        else:
            half_tol = local_tol / 2.0
            stack.append((a, mid, left, half_tol, depth + 1))
            stack.append((mid, b, right, half_tol, depth + 1))
        if evaluations > 10_000:
            exact = False
            break
    return sign * total, evaluations, exact


def nelder_mead_2d(start, scale=1.0, tol=1e-8, max_iter=500):
    """Minimise a fixed 2-D Rosenbrock-like valley with the Nelder-Mead simplex method."""
    def cost(p):
        x, y = p
        return (1.0 - x) ** 2 + 10.0 * (y - x * x) ** 2

    simplex = [
        (float(start[0]), float(start[1])),
        (float(start[0]) + scale, float(start[1])),
        (float(start[0]), float(start[1]) + scale),
    ]
    values = [cost(p) for p in simplex]
    iterations = 0
    shrinks = 0
    while iterations < max_iter:
        order = sorted(range(3), key=lambda i: values[i])
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        if abs(values[2] - values[0]) < tol:
            break
        iterations += 1
        cx = (simplex[0][0] + simplex[1][0]) / 2.0
        cy = (simplex[0][1] + simplex[1][1]) / 2.0
        worst = simplex[2]
        reflected = (2.0 * cx - worst[0], 2.0 * cy - worst[1])
        f_reflected = cost(reflected)
        if f_reflected < values[0]:
            expanded = (3.0 * cx - 2.0 * worst[0], 3.0 * cy - 2.0 * worst[1])
            f_expanded = cost(expanded)
            if f_expanded < f_reflected:
                simplex[2], values[2] = expanded, f_expanded
            else:
                simplex[2], values[2] = reflected, f_reflected
            continue
        if f_reflected < values[1]:
            simplex[2], values[2] = reflected, f_reflected
            continue
        if f_reflected < values[2]:
            contracted = (0.5 * (cx + reflected[0]), 0.5 * (cy + reflected[1]))
        else:
            contracted = (0.5 * (cx + worst[0]), 0.5 * (cy + worst[1]))
        f_contracted = cost(contracted)
        if f_contracted < min(f_reflected, values[2]):
            simplex[2], values[2] = contracted, f_contracted
            continue
        best = simplex[0]
        for i in (1, 2):
            point = simplex[i]
            simplex[i] = (0.5 * (best[0] + point[0]), 0.5 * (best[1] + point[1]))
            values[i] = cost(simplex[i])
        shrinks += 1
        if shrinks > 100 and not values[0] < 1.0:
            break
    converged = abs(values[2] - values[0]) < tol
    return simplex[0], values[0], iterations, converged and shrinks <= 100


def brent_root(g, a, b, xtol=1e-12, rtol=4e-16, max_iter=100):
    """Root of g in [a, b] by Brent's method: bisection, secant and inverse quadratic steps."""
    fa, fb = g(a), g(b)
    if fa * fb > 0:
        raise ValueError("g(a) and g(b) must have opposite signs")
    if fa == 0:
        return a, 0, "exact"
    if fb == 0:
        return b, 0, "exact"
    c, fc = a, fa
    d = e = b - a
    steps = {"bisect": 0, "secant": 0, "inverse": 0}
    for iteration in range(1, max_iter + 1):
        if fb * fc > 0:
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol = 2.0 * rtol * abs(b) + 0.5 * xtol
        half = 0.5 * (c - b)
        if abs(half) <= tol or fb == 0:
            return b, iteration, "converged"
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:
                p = 2.0 * half * s
                q = 1.0 - s
                kind = "secant"
            else:
                q = fa / fc
                r = fb / fc
                p = s * (2.0 * half * q * (q - r) - (b - a) * (r - 1.0))
                q = (q - 1.0) * (r - 1.0) * (s - 1.0)
                kind = "inverse"
            if p > 0:
                q = -q
            else:
                p = -p
            accept = 2.0 * p < min(3.0 * half * q - abs(tol * q), abs(e * q))
            if accept:
                e = d
                d = p / q
                steps[kind] += 1
            else:
                d = half
                e = d
                steps["bisect"] += 1
        else:
            d = half
            e = d
            steps["bisect"] += 1
        a, fa = b, fb
        if abs(d) > tol:
            b += d
        elif half > 0:
            b += tol
        else:
            b -= tol
        fb = g(b)
        if math.isnan(fb):
            return b, iteration, "nan"
    used = [name for name, count in steps.items() if count]
    if not used:
        return b, max_iter, "stalled"
    return b, max_iter, "max_iter:" + ",".join(used)


def simulate_queue(arrivals, service_times, servers=2, capacity=5, patience=4.0):
    """A multi-server queue: arrivals join, wait, give up or are served; returns statistics."""
    if servers <= 0:
        raise ValueError("need at least one server")
    free_at = [0.0] * servers
    waiting = []
    served = 0
    dropped = 0
    abandoned = 0
    total_wait = 0.0
    longest_wait = 0.0
    busy_time = 0.0
    clock = 0.0
    log = []
    for index, arrival in enumerate(arrivals):
        if arrival < clock:
            raise ValueError("arrivals must be sorted")
        clock = arrival
        # start service for whoever waits, as servers free up before this arrival
        while waiting:
            server = min(range(servers), key=lambda s: free_at[s])
            start = max(free_at[server], waiting[0][0])
            if start > clock:
                break
            joined, job = waiting.pop(0)
            wait = start - joined
            if wait > patience:
                abandoned += 1
                log.append(("abandon", job, joined + patience))
                continue
            total_wait += wait
            longest_wait = max(longest_wait, wait)
            duration = service_times[job % len(service_times)]
            free_at[server] = start + duration
            busy_time += duration
            served += 1
            log.append(("serve", job, start))
        idle = [s for s in range(servers) if free_at[s] <= clock]
        if idle and not waiting:
            server = idle[0]
            duration = service_times[index % len(service_times)]
            free_at[server] = clock + duration
            busy_time += duration
            served += 1
            log.append(("serve", index, clock))
        elif len(waiting) < capacity:
            waiting.append((clock, index))
            log.append(("queue", index, clock))
        else:
            dropped += 1
            log.append(("drop", index, clock))
    # drain the queue after the last arrival
    while waiting:
        server = min(range(servers), key=lambda s: free_at[s])
        joined, job = waiting.pop(0)
        start = max(free_at[server], joined)
        wait = start - joined
        if wait > patience:
            abandoned += 1
            continue
        total_wait += wait
        longest_wait = max(longest_wait, wait)
        duration = service_times[job % len(service_times)]
        free_at[server] = start + duration
        busy_time += duration
        served += 1
    horizon = max(free_at + [clock])
    utilisation = busy_time / (servers * horizon) if horizon > 0 else 0.0
    mean_wait = total_wait / served if served else 0.0
    return {
        "served": served,
        "dropped": dropped,
        "abandoned": abandoned,
        "mean_wait": mean_wait,
        "longest_wait": longest_wait,
        "utilisation": utilisation,
        "events": len(log),
    }


_SPD = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])

CASES = {
    "lu_solve": [([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]), ([[0.0, 1.0], [1.0, 0.0]], [2.0, 3.0])],
    "conjugate_gradient": [(_SPD, np.array([1.0, 2.0, 3.0]))],
    "kalman_track": [
        ([0.0, 1.1, 1.9, None, 4.2, 40.0, 6.1, 6.9, 8.2, 9.0, 10.1, 11.2], 1e-3, 0.25, 3.0),
        ([0.0, 50.0, 100.0, 150.0, 200.0, 250.0], 1e-3, 0.25, 3.0),
        ([],),
    ],
    "adaptive_quadrature": [(math.sin, 0.0, math.pi), (math.exp, 1.0, 0.0, 1e-9, 6), (math.cos, 2.0, 2.0)],
    "simulate_queue": [
        ([0.0, 0.5, 0.7, 1.0, 1.1, 1.2, 1.3, 4.0, 4.1, 9.0], [2.0, 3.5, 1.0], 2, 3, 2.5),
        ([0.0, 1.0, 2.0], [0.5], 1),
    ],
    "brent_root": [(math.cos, 0.0, 3.0), (lambda x: x**3 - 2 * x - 5, 2.0, 3.0, 1e-12, 4e-16, 3)],
    "nelder_mead_2d": [((-1.2, 1.0),), ((3.0, -2.0), 0.5, 1e-10, 50)],
}
