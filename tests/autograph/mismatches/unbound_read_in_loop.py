"""A name that may be unbound, read inside a converted loop body or branch.

Original: f(0) raises UnboundLocalError on the first iteration (`n` is bound
only when i > c). Converted: f(0) returns 1. Inside the converted loop body
`n` holds the placeholder ag__.Undefined('n'); `j = n` copies it without a
check, the second iteration binds `n`, and the loop ends with `j` bound, so
nothing is ever raised. A read of a possibly-unbound name inside the body
needs the same check the code after the loop has (`if ag__.is_undefined(n):
del n`), or Undefined must refuse to be read.

`g` is the same inside an if body: after a loop that ran zero times, `k = i`
copies the placeholder and g(0) returns 0 where the original raises.
"""

import autograph as ag


def f(c):
    for i in range(2):
        if i > c:
            n = 1
        j = n
    return j


def g(c):
    if c < 1:
        for _ in range(c):
            i = 1
        k = i
        return k
    return 0


INPUTS = [(0,)]

if __name__ == "__main__":
    for args in INPUTS:
        try:
            print(f(*args))
        except UnboundLocalError as error:
            print("original raised", repr(error))
        print("converted returned", ag.convert(f)(*args))
        print("converted g returned", ag.convert(g)(*args))
