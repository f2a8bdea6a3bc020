"""Python-mode regressions about jumps: return, break and continue through try and with.

They cross loops and their else blocks, try/finally and with statements.

Minimal programs from mismatches the differential fuzzer found (test_differential.py
runs them): a jump lowered to flags must run the same finally blocks, handlers and
__exit__ calls as the original, and an exception in flight cancels it as in Python.
"""

from __future__ import annotations

__all__ = ["JUMPS"]

JUMPS: list[tuple[str, list[tuple]]] = [
    # A loop whose else block always raises makes the code after it
    # unreachable; converting the if/return there must still work.
    (
        """
        def f(y):
            for _ in range(2):
                pass
            else:
                raise ValueError("always")
            if y:
                return y
            return 0
        """,
        [(0,), (1,)],
    ),
    # A break in the else block of a loop inside an if inside another loop
    # belongs to the outer loop (its conversion once failed with a KeyError).
    (
        """
        def f(n):
            for _ in range(n):
                if n:
                    for _ in range(n):
                        pass
                    else:
                        break
            return 0
        """,
        [(0,), (2,)],
    ),
    # A try's else block runs only when the body ran to its end: not after a
    # return, break or continue out of the body (it ran, and its return won).
    (
        """
        def f(i):
            try:
                if i > 0:
                    return 1
            except ValueError:
                pass
            else:
                return 2
            return 3
        """,
        [(0,), (1,)],
    ),
    (
        """
        def f(i):
            n = 0
            for k in range(4):
                try:
                    if k == i:
                        continue
                    if k > i + 1:
                        break
                except ValueError:
                    pass
                else:
                    n += 10
                n += 1
            return n
        """,
        [(0,), (1,), (5,)],
    ),
    # A return whose value raises inside a try: the handler runs and the
    # function goes on, so the return must not have set its flag first.
    (
        """
        def f(j):
            for i in range(2):
                try:
                    return i // j
                except ZeroDivisionError:
                    pass
            return 6
        """,
        [(0,), (1,)],
    ),
    # A context manager that swallows an exception raised before a continue
    # (or break) at the end of its body: the code after the with runs, so the
    # flag reset at the top of the iteration is not a dead store.
    (
        """
        class Swallow:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                print("exit", exc[0] is not None)
                return True

        def f(n):
            r = 0
            for i in range(n):
                with Swallow():
                    r += 1
                    if i == 1:
                        1 // 0
                    continue
                r += 100
            j = 0
            while j < n:
                j += 1
                with Swallow():
                    if j == 1:
                        raise MyError(j)
                    break
                r += 1000
            return r
        """,
        [(0,), (1,), (3,)],
    ),
    # A break, continue or return in a finally block drops the exception in
    # flight; lowered to flags, the block ended normally and it went on.
    (
        """
        def f(n):
            out = []
            for i in range(n):
                try:
                    if i == 1:
                        raise MyError(i)
                    if i == 2:
                        out.append(1 // 0)
                finally:
                    if i == 2:
                        break
                    continue
            try:
                if n > 1:
                    raise ValueError(n)
            finally:
                if n > 2:
                    return out, n
            return out
        """,
        [(0,), (2,), (3,)],
    ),
    # Such a jump also cancels a return, break or continue pending from the
    # try body: the body's lowered flags are cleared.
    (
        """
        def f(n):
            for i in range(n):
                try:
                    if i == 2:
                        break
                    return i
                finally:
                    if i < 1:
                        continue
            else:
                return -1
            return -2
        """,
        [(0,), (1,), (2,), (3,)],
    ),
    # An exception out of a loop over a generator: the loop lets go of the
    # generator on the way out, so its finally block prints before the
    # handler runs (for_stmt's frame, kept by the traceback, held it).
    (
        """
        def f(n):
            s = 0
            try:
                for v in countdown(n):
                    if v == 2:
                        raise MyError(v)
                    s += v
            except MyError:
                print("caught")
            return s
        """,
        [(0,), (4,)],
    ),
    # The same when a with statement's context manager takes the exception
    # (fuzz seed 90210).
    (
        """
        def f(n):
            with Ctx(n, True):
                for v in countdown(n):
                    assert log('c', v < 3)
            return n
        """,
        [(0,), (4,)],
    ),
    # An exception raised by a finally block (or an __exit__) while a return,
    # break or continue leaves cancels the jump: the handler that catches it
    # clears the jump's flag (fuzz seed 31337).
    (
        """
        def f(i, j):
            w0 = 0
            while w0 < 1 and ((n := j) != 1):
                w0 += 1
                xs = list(range(0))
                i = int((0.5) / (i))
                try:
                    zs = list(xs)
                    try:
                        return i
                    except ZeroDivisionError:
                        i = -2 + (-2)
                        i = -2
                    else:
                        i = -i + (-2)
                        i = -2
                    finally:
                        i //= i
                    i = -2
                except ZeroDivisionError:
                    i = -2
            return -2
        """,
        [(1, 0)],
    ),
    (
        """
        class Raising:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                raise KeyError

        def f(n):
            out = []
            for i in range(n):
                try:
                    with Raising():
                        if i == 1:
                            break
                        if i == 2:
                            continue
                        if i == 3:
                            return out
                        out.append(i)
                except KeyError:
                    out.append(-i)
            return out
        """,
        [(0,), (2,), (5,)],
    ),
    # A return in a try's else block whose finally block raises, caught
    # outside: the exception cancels the return and the loop goes on
    # (fuzz seed 1640088615).
    (
        """
        def f(xs, ys, zs):
            for n in range(4):
                print('p1', -2 + (-2))
                try:
                    x = 0.5 + n
                    try:
                        xs += [-2]
                        assert (-2) < (n * 0) < n
                    except (IndexError, ZeroDivisionError):
                        i = 0
                    except ZeroDivisionError:
                        i = -2
                        i = -2
                    else:
                        return len(xs), n
                    finally:
                        ys[0] = n
                except IndexError:
                    i = -2
            return -2
        """,
        [([], [], []), ([5], [-2, 8, 1, 3], [3])],
    ),
    # An exception raised while a return (or break) leaves, swallowed by a
    # context manager: the jump is cancelled and the code after the with runs
    # (fuzz seed 777123).
    (
        """
        class Swallow:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return True

        def f(n):
            with Swallow():
                try:
                    try:
                        return
                    finally:
                        n = 1 // n
                except IndexError:
                    n = -2
            return -2
        """,
        [(0,), (1,)],
    ),
    (
        """
        class Swallow:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return True

        def f(xs):
            total = 0
            for x in xs:
                with Swallow():
                    with Swallow():
                        try:
                            total += x
                            break
                        finally:
                            total += 10 // x
                total += 100
            return total
        """,
        [([1, 0, 2],), ([0, 3],), ([],)],
    ),
    # A pending return does not reach the guards of the finally block: the raise after
    # its if/elif with a return still runs (fuzz seed 4140870683).
    (
        """
        def f(x, xs):
            xs = list(xs)
            if (-2) < (-1) != (-2):
                try:
                    return -2
                except ZeroDivisionError:
                    raise MyError('e1')
                except MyError:
                    def h0(p):
                        return -2
                finally:
                    if 0.5 < -2:
                        x = 0.5
                    elif xs:
                        print('p2', xs)
                        return -2
                    raise MyError('e3')
            return -2
        """,
        [(0.0, []), (0.0, [1])],
    ),
    # A break flag of a loop inside a try's handler is not pending when the finally block
    # starts: a finally block with a return of its own read it unbound (fuzz seed 1125042341).
    (
        """
        def f(x):
            try:
                w0 = 0
                while w0 < 1:
                    w0 += 1
                    return
            except ZeroDivisionError:
                if x < -2:
                    for i in range(0):
                        break
            finally:
                return
            return
        """,
        [(0.0,), (-3.0,)],
    ),
]
