"""A loop whose else block always raises, then an if that returns.

Original: f(0) and f(1) raise ValueError. Converted: ag.convert(f) raises
SyntaxError("no binding for nonlocal 'retval' found"): the code after the loop
is unreachable, the return rewrite drops its `retval` binding but the branch
function of the `if` still declares `nonlocal retval`.
"""

import autograph as ag


def f(y):
    for _ in range(2):
        pass
    else:
        raise ValueError("always")
    if y:
        return y
    return 0


INPUTS = [(0,), (1,)]

if __name__ == "__main__":
    print(ag.to_code(f))
