"""A nonlocal name assigned inside converted control flow of a local function.

Original: f(4) returns 7. Converted: f(4) returns 4. The generated branch
function `if_body` assigns a local `i` of its own: `i` is neither declared
nonlocal there nor passed through get_state/set_state, because it is not a
local of `h0` (it is `h0`'s nonlocal). The same holds for loops
(`for _ in range(2): i = 7`). When the block also reads the name
(`i = i + 1`) the conversion is right.
"""

import autograph as ag


def f(i):
    def h0():
        nonlocal i
        if i > 0:
            i = 7

    h0()
    return i


INPUTS = [(4,)]

if __name__ == "__main__":
    for args in INPUTS:
        print(f(*args), ag.convert(f)(*args))
