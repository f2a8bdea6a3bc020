import pytest

from autograph.tracing.signature import Signature


def test_positional_fast_path_returns_args():
    sig = Signature.of(lambda a, b: a)
    args = (1, 2)
    assert sig.canonicalize(args, {}) is args
    assert sig.single_positional is False
    assert Signature.of(lambda a: a).single_positional


def test_keywords_and_defaults_canonical():
    sig = Signature.of(lambda a, b=2: a)
    assert sig.canonicalize((1,), {}) == (1, 2)
    assert sig.canonicalize((), {"a": 1, "b": 5}) == (1, 5)
    with pytest.raises(TypeError):
        sig.canonicalize((1, 2, 3), {})


def test_varargs_and_keyword_only_round_trip():
    def f(a, *rest, k=1, **extra):
        return a

    sig = Signature.of(f)
    values = sig.canonicalize((1, 2, 3), {"z": 4})
    assert values == (1, (2, 3), 1, {"z": 4})
    assert sig.to_call(values) == ((1, 2, 3), {"z": 4})
    assert sig.to_call((1, (), 5, {})) == ((1,), {"k": 5})


def test_skip_first_and_hints():
    class C:
        def m(self, x: int) -> int:
            return x

    sig = Signature.of(C.m, skip_first=True)
    assert sig.names == ("x",)
    assert sig.hints["x"] is int


def test_a_bad_call_names_the_function_like_python():
    def scale(x, *, n=2):
        return x * n

    class Model:
        def step(self, x):
            return x

    with pytest.raises(TypeError, match=r"^test_a_bad_call_names_the_function_like_python.<locals>.scale\(\) too many"):
        Signature.of(scale).canonicalize((1, 3), {})
    with pytest.raises(TypeError, match=r"Model.step\(\) missing a required argument: 'x'"):
        Signature.of(Model.step, skip_first=True).canonicalize((), {})
    with pytest.raises(TypeError, match=r"scale\(\) got an unexpected keyword argument 'm'"):
        Signature.of(scale).canonicalize((1,), {"m": 3})


def test_plain_function_read_off_its_code_matches_inspect():
    import functools
    import inspect

    def plain(a, b=2, c=3):
        return a

    def positional_only(a, /, b):
        return a

    @functools.wraps(plain)
    def wrapper(*args, **kwargs):
        return plain(*args, **kwargs)

    for func in (plain, positional_only, wrapper, lambda: 0):
        sig = Signature.of(func)
        expected = inspect.signature(func)
        assert sig.names == tuple(expected.parameters)
        assert sig.kinds == tuple(p.kind for p in expected.parameters.values())
        assert sig.signature == expected
    assert Signature.of(wrapper).names == ("a", "b", "c")  # follows __wrapped__, as inspect does
    assert Signature.of(plain, skip_first=True).signature == inspect.signature(functools.partial(plain, 1))
    assert Signature.of(plain).canonicalize((1,), {"c": 5}) == (1, 2, 5)
