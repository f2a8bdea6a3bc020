import collections
import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from runtime.ir.structure import flatten, map_structure, unflatten

Point = collections.namedtuple("Point", "x y")


@dataclasses.dataclass
class Pair:
    a: object
    b: object


def test_dict_keys_are_sorted_and_roundtrip():
    value = {"b": [1, 2], "a": (3,)}
    leaves, tree = flatten(value)
    assert leaves == [3, 1, 2]
    assert unflatten(tree, [30, 10, 20]) == {"a": (30,), "b": [10, 20]}


def test_dicts_are_rebuilt_in_their_own_order_and_compare_equal_in_any_order():
    leaves, tree = flatten({"sum": 1, "b": 2, "a": 3})
    assert leaves == [3, 2, 1]
    assert list(unflatten(tree, leaves)) == ["sum", "b", "a"]
    other = flatten({"a": 0, "b": 0, "sum": 0})[1]
    assert other == tree and hash(other) == hash(tree)
    assert list(unflatten(other, leaves)) == ["a", "b", "sum"]


def test_namedtuple_and_dataclass_keep_their_types():
    value = [Point(1, 2), Pair(3, {"k": 4})]
    leaves, tree = flatten(value)
    assert leaves == [1, 2, 3, 4]
    rebuilt = unflatten(tree, leaves)
    assert rebuilt == value
    assert type(rebuilt[0]) is Point


def test_different_nesting_gives_different_treedefs():
    assert flatten([1, (2, 3)])[1] != flatten([1, 2, 3])[1]
    assert hash(flatten([1, (2, 3)])[1]) == hash(flatten([4, (5, 6)])[1])


nested = st.recursive(
    st.integers(),
    lambda inner: st.lists(inner, max_size=3)
    | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=10,
)


@given(nested)
def test_flatten_unflatten_roundtrip(value):
    leaves, tree = flatten(value)
    assert tree.num_leaves == len(leaves)
    assert unflatten(tree, leaves) == value
    assert map_structure(lambda x: x, value) == value
