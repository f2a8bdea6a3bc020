import collections
import gc
import threading
import warnings
import weakref

import numpy as np
import pytest

import autograph as ag
from autograph.errors import StagingError
from autograph.tracing.retracing import RetracingWarning

Point = collections.namedtuple("Point", "x y")


def traced(func=None, **options):
    options.setdefault("autograph", False)
    if func is None:
        return lambda f: ag.function(f, **options)
    return ag.function(func, **options)


def test_decorator_bare_and_with_arguments():
    @ag.function
    def bare(x):
        return x * 2

    @ag.function(autograph=False)
    def called(x):
        return x * 3

    assert bare.__autograph_function__ and called.__autograph_function__
    assert bare(np.int64(2)) == 4
    assert called(np.int64(2)) == 6
    assert bare.python_function.__name__ == "bare"
    assert bare.__name__ == "bare"


def test_tensor_arguments_trace_once_per_dtype_and_shape(capsys):
    @traced
    def double(a):
        print("Tracing with", a)
        return a + a

    assert double(np.int64(1)) == 2
    assert double(np.int64(5)) == 10
    assert double(np.float64(1.5)) == 3.0
    assert capsys.readouterr().out == (
        'Tracing with Tensor("a:0", shape=(), dtype=int64)\n'
        'Tracing with Tensor("a:0", shape=(), dtype=float64)\n'
    )
    np.testing.assert_array_equal(double(np.arange(3)), [0, 2, 4])
    assert double.experimental_get_tracing_count() == 3


def test_outputs_are_numpy_values():
    @traced
    def f(a):
        return a + 1, [a * 2, None], {"k": 3}, Point(a, 1.5)

    out = f(np.int64(1))
    assert out == (2, [2, None], {"k": 3}, Point(1, 1.5))
    assert isinstance(out[0], np.int64) and isinstance(out[2]["k"], np.int64)
    assert isinstance(out[3].y, np.float64)
    assert isinstance(out[1], list) and isinstance(out[3], Point)

    @traced
    def array(a):
        return a * 2

    result = array(np.ones((2, 2), np.float32))
    assert isinstance(result, np.ndarray) and result.dtype == np.float32


def test_python_values_key_by_type_and_value(capsys):
    @traced
    def f(x):
        print("trace", repr(x))
        return x

    with pytest.warns(RetracingWarning, match="'x'"):
        for value in (1, 1, True, 1.0, "1", None, 2):
            f(value)
    assert f.experimental_get_tracing_count() == 6
    assert f(True) is np.True_ or f(True) == True  # noqa: E712
    assert f(None) is None


def test_nesting_is_part_of_the_key():
    @traced
    def total(xs):
        return xs[0] + xs[1]

    total([np.int64(1), np.int64(2)])
    total([np.int64(3), np.int64(4)])
    assert total.experimental_get_tracing_count() == 1
    total((np.int64(3), np.int64(4)))
    total({0: np.int64(3), 1: np.int64(4)})
    assert total.experimental_get_tracing_count() == 3


def test_keyword_and_positional_calls_share_a_trace():
    @traced
    def f(a, b=2):
        return a * b

    assert f(np.int64(3)) == 6
    assert f(np.int64(3), 2) == 6
    assert f(a=np.int64(4), b=2) == 8
    assert f.experimental_get_tracing_count() == 1
    assert f(np.int64(3), b=3) == 9
    assert f.experimental_get_tracing_count() == 2


def test_objects_keyed_by_identity_and_not_kept_alive():
    class Model:
        def __init__(self, w):
            self.w = w

    @traced
    def evaluate(model, x):
        return model.w * x

    m1, m2 = Model(2.0), Model(3.0)
    assert evaluate(m1, np.float64(1)) == 2.0
    m1.w = 5.0  # same object: same key, the trace keeps the old value
    assert evaluate(m1, np.float64(1)) == 2.0
    assert evaluate(m2, np.float64(1)) == 3.0
    ref = weakref.ref(m1)
    del m1
    gc.collect()
    assert ref() is None


def test_methods_have_one_cache_per_instance_held_weakly():
    class Counter:
        def __init__(self, step):
            self.step = step

        @traced
        def add(self, x):
            return x + self.step

    a, b = Counter(1), Counter(10)
    assert a.add(np.int64(1)) == 2
    assert b.add(np.int64(1)) == 11
    assert a.add == a.add and a.add.__func__ is a.add.__func__
    assert a.add.experimental_get_tracing_count() == 1
    assert str(a.add.get_concrete_function(np.int64(0))).startswith("ConcreteFunction add(x)")
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None


def test_static_and_class_methods():
    class K:
        factor = 3

        @staticmethod
        @traced
        def s1(x):
            return x * 2

        @traced
        @staticmethod
        def s2(x):
            return x * 2

        @classmethod
        @traced
        def c1(cls, x):
            return x * cls.factor

        @traced
        @classmethod
        def c2(cls, x):
            return x * cls.factor

    one = np.int64(1)
    assert K.s1(one) == K.s2(one) == K().s2(one) == 2
    assert K.c1(one) == K.c2(one) == K().c2(one) == 3


def test_nested_functions_are_inlined():
    @traced
    def add(a, b):
        return a + b

    @traced
    def dense(x, w, b):
        return add(np.matmul(x, w), b)

    out = dense(np.ones((3, 2), np.float32), np.ones((2, 2), np.float32), np.ones(2, np.float32))
    np.testing.assert_array_equal(out, np.full((3, 2), 3.0, np.float32))
    assert add.experimental_get_tracing_count() == 0
    nodes = [n.op for n in dense.get_concrete_function(
        np.ones((3, 2), np.float32), np.ones((2, 2), np.float32), np.ones(2, np.float32)
    ).graph.as_graph_def().node]
    assert "add" in nodes


def test_recursion_on_tensors_is_a_staging_error():
    @traced
    def forever(n):
        return forever(n - 1)

    with pytest.raises(StagingError, match="calls itself"):
        forever(np.int64(5))


def test_recursion_on_python_values_terminates(capsys):
    @traced
    def countdown(n):
        if n > 0:
            print("tracing")
            return countdown(n - 1)
        return 1

    assert countdown(5) == 1
    assert capsys.readouterr().out == "tracing\n" * 5


def test_run_functions_eagerly(capsys):
    @traced
    def f(x):
        print("python", x)
        return x

    try:
        ag.run_functions_eagerly(True)
        assert ag.functions_run_eagerly()
        assert f(1) == 1 and f(1) == 1
        assert f.experimental_get_tracing_count() == 0
    finally:
        ag.run_functions_eagerly(False)
    assert capsys.readouterr().out == "python 1\npython 1\n"
    assert not ag.functions_run_eagerly()


def test_separate_functions_do_not_share_traces(capsys):
    def f():
        print("Tracing!")

    traced(f)()
    traced(f)()
    assert capsys.readouterr().out == "Tracing!\nTracing!\n"


def test_leaked_tensor_is_a_type_error():
    leaked = []

    @traced
    def leak(a):
        leaked.append(a + 1)
        return a + 2

    assert leak(np.int64(1)) == 3

    @traced
    def use(b):
        return b + leaked[0]

    with pytest.raises(TypeError, match="leaked"):
        use(np.int64(2))
    with pytest.raises(TypeError, match="leaked"):
        use(leaked[0])


def test_a_nonlocal_set_by_a_nested_function_called_by_name_in_a_staged_loop_is_carried():
    @ag.function
    def total_of(xs):
        total = np.float64(0)

        def add(v):
            nonlocal total
            total = total + v

        for v in xs:
            add(v)
        return total

    assert total_of(np.ones(2)) == 2.0


def test_a_nonlocal_set_by_a_nested_function_called_out_of_sight_in_a_staged_loop_is_told_as_a_leak():
    @ag.function
    def total_of(xs):
        total = np.float64(0)

        def add(v):
            nonlocal total
            total = total + v

        steps = {"add": add}
        for v in xs:
            steps["add"](v)
        return total

    with pytest.raises(TypeError, match=r"made at .*test_function.py:\d+, belongs to .* a nonlocal that a nested"):
        total_of(np.ones(2))


def test_threads_trace_each_signature_once():
    calls = []
    barrier = threading.Barrier(4)

    @traced
    def f(x):
        calls.append(x.shape)
        return x + 1

    def worker(n):
        barrier.wait()
        for _ in range(50):
            np.testing.assert_array_equal(f(np.zeros(n)), np.ones(n))

    threads = [threading.Thread(target=worker, args=(n,)) for n in (1, 2, 1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(calls) == [(1,), (2,)]
    assert f.experimental_get_tracing_count() == 2


def test_follow_type_hints_converts_annotated_arguments():
    @traced(follow_type_hints=True)
    def f(x: ag.Tensor, n: ag.Tensor, scale):
        return x * n * scale

    for n in range(4):
        assert f(np.float64(1), n, 2) == 2 * n
    assert f.experimental_get_tracing_count() == 1
    f(np.float64(1), 1, 3)
    assert f.experimental_get_tracing_count() == 2


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PRIMITIVE_VALUES = st.one_of(
    st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 1.0, 2.5]), st.sampled_from(["a", "b"]),
    st.none(),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(_PRIMITIVE_VALUES, min_size=1, max_size=8))
def test_one_trace_per_distinct_type_and_value(values):
    @traced
    def f(x):
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        for value in values:
            out = f(value)
            assert out == value or (out is None and value is None)
    assert f.experimental_get_tracing_count() == len({(type(v), v) for v in values})


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["float32", "int64"]), st.integers(0, 3)), min_size=1, max_size=8))
def test_one_trace_per_distinct_dtype_and_shape(arrays):
    @traced
    def f(x):
        return x + x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        for dtype, size in arrays:
            np.testing.assert_array_equal(f(np.ones(size, dtype)), np.full(size, 2, dtype))
    assert f.experimental_get_tracing_count() == len(set(arrays))


def test_partials_callable_objects_and_builtins():
    import functools

    def scale(x, k):
        if x > 0:
            return x * k
        return x

    class AddOne:
        def __call__(self, x):
            return x + 1

    assert ag.function(functools.partial(scale, k=3))(np.int64(2)) == 6
    assert ag.function(AddOne())(np.int64(2)) == 3
    assert ag.function(np.tanh)(np.float64(0.0)) == 0.0


def test_spec_and_array_calls_share_a_trace():
    @traced
    def f(x):
        return x + 1

    cf = f.get_concrete_function(ag.TensorSpec([3], np.float64))
    f(np.zeros(3))
    assert f.experimental_get_tracing_count() == 1
    assert f.get_concrete_function(np.zeros(3)) is cf


def test_methods_run_eagerly_and_expose_the_bound_python_function():
    class Box:
        def __init__(self):
            self.calls = 0

        @traced
        def bump(self, x):
            self.calls += 1
            return x + self.calls

    box = Box()
    assert box.bump.python_function.__self__ is box
    try:
        ag.run_functions_eagerly(True)
        assert box.bump(1) == 2 and box.bump(1) == 3
    finally:
        ag.run_functions_eagerly(False)
    assert box.bump(np.int64(1)) == 4  # traced: the Python side effect happens once
    assert box.bump(np.int64(1)) == 4


def test_temporary_instances_stay_alive_during_the_call():
    class Scale:
        factor = 2

        @traced
        def apply(self, x):
            return x * self.factor

    assert Scale().apply(np.int64(4)) == 8


def test_unhashable_and_slotted_instances():
    class Unhashable:
        __hash__ = None

        @traced
        def f(self, x):
            return x + 1

    obj = Unhashable()
    assert obj.f(np.int64(1)) == 2
    assert obj.f.__func__ is obj.f.__func__

    class Slotted:
        __slots__ = ("k",)

        @traced
        def f(self, x):
            return x

    with pytest.raises(TypeError, match="__weakref__"):
        Slotted().f(np.int64(1))


def test_copies_have_their_own_cache():
    import copy

    @traced
    def f(x):
        return x + 1

    f(np.int64(1))

    class Holder:
        def __init__(self):
            self.fn = f

    clone = copy.deepcopy(Holder()).fn
    assert clone is not f and clone.experimental_get_tracing_count() == 0
    assert clone(np.int64(1)) == 2
    assert copy.copy(f).python_function is f.python_function
    assert "f" in repr(clone)
