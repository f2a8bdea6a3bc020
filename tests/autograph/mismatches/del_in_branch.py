"""A name deleted in a branch not taken stays bound to the Undefined placeholder.

Original: f(0) and f(1) both raise UnboundLocalError at `1 != j` (j is
unbound after the first if on both paths). Converted: f(1) raises NameError
(allowed), but f(0) returns 2: j was initialised to `ag__.Undefined('j')`
before the if, the branch that deletes it did not run, and the check that
unbinds a leftover placeholder after the if is not emitted for names a `del`
inside the if unbinds (reading j to check it would fail on the other path),
so `1 != j` compares with the placeholder. Found by the long differential
fuzz run with seed 2002.
"""

import autograph as ag


def f(c):
    if c:
        j = 1
        del j
    if c > 5:
        pass
    elif 1 != j:
        c = 2
    return c


INPUTS = [(0,), (1,)]

if __name__ == "__main__":
    print(ag.to_code(f))
    for args in INPUTS:
        for name, func in (("original", f), ("converted", ag.convert(f))):
            try:
                print(name, args, "returned", func(*args))
            except Exception as error:  # noqa: BLE001 - the outcome is what this shows
                print(name, args, "raised", type(error).__name__)
