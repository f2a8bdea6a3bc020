"""An exception a context manager swallows does not cancel the return it interrupted.

Original: f(0) returns -2. `return` is pending when the `finally:` block
raises ZeroDivisionError, which cancels the return; the `except IndexError`
does not take it, the `with` statement's `__exit__` swallows it, and the
code after the with runs `return -2`. Converted: f(0) returns None. The
return is lowered to `retval = None; do_return = True`; a handler that may
catch an exception raised while a jump leaves clears the jump's flags
(converters/finally_jumps.py), but here the catcher is the context manager,
so nothing clears `do_return` and the code after the with is skipped.
Found by the differential fuzz (seed 777123, PYTHONHASHSEED=777123).
"""

import autograph as ag


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


INPUTS = [(0,), (1,)]

if __name__ == "__main__":
    print(ag.to_code(f))
    for args in INPUTS:
        for name, func in (("original", f), ("converted", ag.convert(f))):
            try:
                print(name, args, "returned", func(*args))
            except Exception as error:  # noqa: BLE001 - the outcome is what this shows
                print(name, args, "raised", type(error).__name__)
