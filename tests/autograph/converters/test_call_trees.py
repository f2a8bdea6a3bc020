"""call_trees: calls through ag__.converted_call unless known to need no conversion."""

from autograph.converters import call_trees
from tests.autograph.converters.conversion import assert_converts, transformed


def test_user_calls_with_star_args_and_kwargs():
    assert_converts(
        "def f(x, rest, kw):\n    return g(x, *rest, k=1, **kw)\n",
        "def f(x, rest, kw):\n    return ag__.converted_call(g, x, *rest, k=1, **kw)\n",
        call_trees,
    )


def test_method_calls_and_nested_calls():
    assert_converts(
        "def f(m, x):\n    return m.apply(h(x))\n",
        "def f(m, x):\n    return ag__.converted_call(m.apply, ag__.converted_call(h, x))\n",
        call_trees,
    )


def test_known_safe_calls_stay_direct():
    source = "def f(x):\n    ag.print(x)\n    print(x)\n    return np.tanh(np.sum(x)) + ag__.not_(x)\n"
    assert_converts(source, source, call_trees)


def test_math_functions_stay_direct():
    source = "def f(x):\n    return math.sqrt(x) + math.floor(x)\n"
    assert_converts(source, source, call_trees, modules={"math": "math"})


def test_staged_builtins_call_their_operator():
    assert "ag__.len(x)" in transformed("def f(x):\n    return len(x)\n", call_trees)
    assert "ag__.range(1, ag__.len(x))" in transformed("def f(x):\n    return range(1, len(x))\n", call_trees)


def test_a_shadowed_builtin_goes_through_converted_call():
    out = transformed("def f(x, len):\n    return len(x)\n", call_trees)
    assert "ag__.converted_call(len, x)" in out


def test_local_shadowing_a_module_name_is_converted():
    out = transformed("def f(np):\n    return np.tanh(1)\n", call_trees)
    assert "ag__.converted_call(np.tanh, 1)" in out


def test_not_recursive_leaves_calls():
    source = "def f(x):\n    return g(x)\n"
    assert_converts(source, source, call_trees, recursive=False)
