"""break in the else block of a loop that sits in an if inside another loop.

Original: f(0) and f(2) return 0. Converted: ag.convert(f) raises
KeyError(<gast.gast.For object ...>) while converting. The `break` belongs to
the outer loop; without the enclosing `if` (or with the break moved out of
the inner loop's else) the function converts.
"""

import autograph as ag


def f(n):
    for _ in range(n):
        if n:
            for _ in range(n):
                pass
            else:
                break
    return 0


INPUTS = [(0,), (2,)]

if __name__ == "__main__":
    print(ag.to_code(f))
