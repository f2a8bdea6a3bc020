"""A jump out of a `finally:` block does not cancel the body's pending jump.

Original: f(1) returns -1. In the first iteration `return i` is pending when
the `finally:` block runs `continue`, which cancels the return; the loop
ends and `return -1` runs. Converted: f(1) returns 0. The return is lowered
to `retval = i; do_return = True` and the continue to a flag; nothing clears
`do_return`, so the loop stops on it and f returns 0. Cancelling needs the
jump in the finally block to clear the flags of the jumps its try body may
have taken (return, break and continue), which the jump passes, run one by
one, do not know about. A jump in a `finally:` block that drops a pending
*exception* is handled (converters/finally_jumps.py). Python 3.14 warns
about jumps out of `finally:` (PEP 765). Not produced by the differential
fuzz: its `finally:` blocks never jump out.
"""

import autograph as ag


def f(n):
    for i in range(n):
        try:
            return i
        finally:
            if i < 1:
                continue  # noqa: B012 - the jump that cancels the return is the subject
    return -1


INPUTS = [(0,), (1,), (3,)]

if __name__ == "__main__":
    print(ag.to_code(f))
    for args in INPUTS:
        for name, func in (("original", f), ("converted", ag.convert(f))):
            try:
                print(name, args, "returned", func(*args))
            except Exception as error:  # noqa: BLE001 - the outcome is what this shows
                print(name, args, "raised", type(error).__name__)
