"""Python-mode regressions about names: unbound, deleted, global and nonlocal.

Minimal programs from mismatches the differential fuzzer found (test_differential.py
runs them): a name the original leaves unbound must raise as it does, never reach
the Undefined placeholder, and a global, nonlocal or closure cell must be the
user's own.
"""

from __future__ import annotations

__all__ = ["NAMES"]

NAMES: list[tuple[str, list[tuple]]] = [
    # A name bound only in a branch not taken: reading it must raise
    # UnboundLocalError, not compute with the Undefined placeholder.
    (
        """
        def f(c):
            if c:
                i = 1
            return i + 1
        """,
        [(0,), (1,)],
    ),
    (
        """
        def f(c):
            if c:
                i = 1
            return [i]
        """,
        [(0,), (1,)],
    ),
    # A deleted name read inside a loop: NameError (free variable) is accepted
    # for UnboundLocalError.
    (
        """
        def f(i, j):
            del j
            while i < 1:
                i += j
            return i
        """,
        [(0, 1), (5, 1)],
    ),
    # A deleted name read through a closure: NameError in the original,
    # UnboundLocalError once converted; the allowance covers both directions.
    (
        """
        def f(i):
            def h():
                return i
            del i
            for i in (h(),):
                pass
            return i
        """,
        [(1,)],
    ),
    # A nonlocal name only assigned (never read) in a branch or loop of a
    # local function: the branch must rebind the enclosing function's name.
    (
        """
        def f(i):
            def h0():
                nonlocal i
                if i > 0:
                    i = 7
                for _ in range(2):
                    i = i * 2 if i > 100 else 8
            h0()
            return i
        """,
        [(4,), (-1,)],
    ),
    # A possibly unbound name copied inside a loop body or a branch (unbound
    # on the first iteration, or after a loop that ran zero times) must raise
    # UnboundLocalError, not copy the Undefined placeholder.
    (
        """
        def f(c):
            for i in range(2):
                if i > c:
                    n = 1
                j = n
            return j
        """,
        [(0,), (-1,)],
    ),
    (
        """
        def f(c):
            if c < 1:
                for _ in range(c):
                    i = 1
                k = [i]
                return k
            return 0
        """,
        [(0,), (-1,), (2,)],
    ),
    # The same read in the lazy operand of a loop test's `and`.
    (
        """
        def f(x):
            i = -2
            del i
            w0 = 0
            while w0 < 1 and (0.5 == i):
                w0 += 1
                i = -2
            return -2
        """,
        [(0.0,)],
    ),
    # A for loop whose target is declared global: the loop body cannot take
    # the target as its parameter (conversion failed with "name 'g' is
    # parameter and global").
    (
        """
        def f(i):
            global g
            g = 7
            for g in range(2):
                i += g
            return i, g
        """,
        [(1,)],
    ),
    # A walrus in a while test binding a global: the test function must
    # declare it global too (it raised UnboundLocalError).
    (
        """
        def f():
            global g
            g = 5
            w0 = 0
            while w0 < 3 and (g := g - 1) != 3:
                w0 += 1
            return g, w0
        """,
        [()],
    ),
    # The same read in the condition of an if-expression (passed to if_exp
    # as it is, not as a lambda) inside a loop body.
    (
        """
        def f(c):
            w1 = 0
            while w1 < 1:
                w1 += 1
                if c:
                    j = 1
                return 1 if (0 > 1) or (j == -2) else 0
            return -2
        """,
        [(0,), (1,)],
    ),
    # A name a branch not taken would have deleted: still unbound after the
    # if, so the later read raises instead of comparing with the placeholder.
    (
        """
        def f(c):
            if c:
                j = 1
                del j
            if c > 5:
                pass
            elif 1 != j:
                c = 2
            return c
        """,
        [(0,), (1,)],
    ),
    # An exception out of a staged statement inside a try: a name the
    # statement carries, never bound, must not keep its Undefined placeholder
    # once a handler swallowed the exception (nor in a finally block, nor
    # after a with statement whose context manager suppressed it).
    (
        """
        def f(xs):
            try:
                w0 = 0
                while w0 < 1:
                    w0 += 1
                    for k in range(0):
                        pass
                    xs[0] = 1
            except IndexError:
                pass
            return k
        """,
        [([],), ([0],)],
    ),
    (
        """
        def f(xs, c):
            try:
                if c:
                    xs[0] = 1
                    k = 1
                else:
                    k = 2
            except IndexError:
                pass
            return k
        """,
        [([], 1), ([], 0), ([0], 1)],
    ),
    (
        """
        def f(xs, c):
            try:
                if c:
                    xs[0] = 1
                    k = 1
            finally:
                print(k)
            return k
        """,
        [([], 1), ([], 0), ([0], 1)],
    ),
    (
        """
        def f(xs, c):
            try:
                if c:
                    k = 1
                    del k
                    xs[0] = 1
                    k = 2
            except IndexError:
                k = 5
            return k
        """,
        [([], 1), ([0], 1)],
    ),
    (
        """
        import contextlib

        def f(xs, c):
            with contextlib.suppress(IndexError):
                for k in range(c):
                    xs[k] = 1
                    del k
                    j = 1
            return j
        """,
        [([], 1), ([], 0), ([0], 1), ([0, 0], 2)],
    ),
    # A generator expression reads its free names lazily, like a closure: a
    # loop over one that rebinds such a name must rebind the function's own
    # (the loop body took the target as its parameter; fuzz seed 4242).
    (
        """
        def f(xs, ys):
            if -2.0 < -1:
                with Ctx(-2, True) as i:
                    for i in (v + i for v in xs[:3]):
                        print('p1', i)
            elif 0.5 < -2:
                i = -2
            i = -2
            return -2
        """,
        [([], []), ([1, 0], [])],
    ),
    (
        """
        def f(xs):
            out = []
            k = 1
            for k in (v * k for v in xs):
                out.append(k)
            n = 0
            steps = (n for _ in range(3))
            while n < 3:
                n += 1
                out.append(next(steps))
            return out
        """,
        [([],), ([1, 2, 3],)],
    ),
    # A while test binding a name with `:=` inside a handler that never runs:
    # the name's placeholder belongs next to the loop, not at the top of the
    # function, where the read after the try found it (fuzz seed 823117198).
    (
        """
        def f(i, j):
            try:
                x = 0.5
            except ZeroDivisionError:
                w1 = 0
                while w1 < 1 and ((k := i) > 0):
                    w1 += 1
                    i = -2
                assert 0.5 < -2
            except ZeroDivisionError:
                i = -2
            i = -2
            return k
        """,
        [(0, 0)],
    ),
    (
        """
        def f(n):
            out = []
            while n > 0 and (k := n) > 1:
                n -= 1
                out.append(k)
            return out, k
        """,
        [(0,), (1,), (3,)],
    ),
    # A read of a deleted name raising inside nested trys: the outer handler
    # must not find the if's placeholder (fuzz seed 416577361).
    (
        """
        def f(i):
            try:
                try:
                    del i
                    if -2 < -2 + i:
                        i = -2
                    elif 0.5 < -2:
                        i = -2
                        i = -2
                    else:
                        i = -2
                except ZeroDivisionError as e:
                    print('h1', type(e).__name__)
                    x = 0.5
            except Exception:
                i = i
            return
        """,
        [(0,), (-3,)],
    ),
    (
        # x[k] op= v reads x[k] before it evaluates v: the IndexError comes first
        """
        def f(xs):
            xs.append(-2)
            try:
                xs[-2] += (-2) // 0
            except ZeroDivisionError:
                i = -2
            return -2
        """,
        [([],), ([1],)],
    ),
    (
        # a name read unchecked in an if's test (a chained !=) while it holds the placeholder
        # (another read of it is checked): comparing it raises, as reading it does in Python
        """
        def f(i, j, x):
            if 0.5 < -2 + i:
                w0 = 0
                while w0 < 1 and ((n := -2) > 0):
                    w0 += 1
            if (-2) != n != (-2):
                print('t1', x)
            return n
        """,
        [(0, 0, 0.0), (5, 0, 0.0)],
    ),
]
