"""Arguments for generated programs: a hypothesis strategy per parameter kind.

Values stay small (ints from -3 to 9, lists of up to five of them) so loops
over them are short, and floats include the awkward ones: -0.0, inf and NaN.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

__all__ = ["arguments"]


_FLOATS = st.one_of(
    st.floats(-8, 8, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 2)),
    st.sampled_from([0.0, -0.0, 1.0, math.inf, math.nan]),
)
_VALUES = {
    "int": st.integers(-3, 9),
    "float": _FLOATS,
    "list": st.lists(st.integers(-3, 9), max_size=5),
}


def arguments(kinds: tuple[str, ...]) -> st.SearchStrategy[tuple]:
    """Argument tuples for a program whose parameters have `kinds`."""
    return st.tuples(*(_VALUES[kind] for kind in kinds))
