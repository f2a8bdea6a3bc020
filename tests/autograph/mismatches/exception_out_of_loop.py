"""An exception out of a converted loop leaves its Undefined placeholders bound.

Original: f([]) raises UnboundLocalError at `return k` (the for loop ran
zero times, so k was never bound). Converted: f([]) returns Undefined('k').
The while loop carries k, so k is set to `ag__.Undefined('k')` before
`ag__.while_stmt`, and the check that unbinds a leftover placeholder comes
after it; the IndexError from `xs[0] = 1` leaves the loop past that check,
the handler swallows it, and `return k` returns the placeholder. Found by
the long differential fuzz run with seed 4004.
"""

import autograph as ag


def f(xs):
    try:
        w0 = 0
        while w0 < 1:
            w0 += 1
            for k in range(0):  # noqa: B007 - k is read after the loop
                pass
            xs[0] = 1
    except IndexError:
        pass
    return k


INPUTS = [([],)]

if __name__ == "__main__":
    print(ag.to_code(f))
    for args in INPUTS:
        for name, func in (("original", f), ("converted", ag.convert(f))):
            try:
                print(name, args, "returned", func(*args))
            except Exception as error:  # noqa: BLE001 - the outcome is what this shows
                print(name, args, "raised", type(error).__name__)
