"""no_state: a staged statement reads and rebinds the names it carries through its helpers' cells."""

import pytest

from runtime.operators.no_state import state_functions
from runtime.operators.undefined import Undefined


def make():
    total = 1
    later: object  # declared, not bound

    def body():
        nonlocal total, later
        total += 1
        later = total

    def read():
        try:
            return total, later
        except NameError:
            return total, None

    return body, read


def test_the_cells_of_the_helpers_carry_the_state():
    body, read = make()
    get_state, set_state = state_functions(None, None, ("total", "later"), (body, None))
    total, later = get_state()
    assert total == 1 and type(later) is Undefined and later.symbol_name == "later"
    set_state((5, 7))
    assert read() == (5, 7)
    body()
    assert get_state() == (6, 6)


def test_writing_undefined_unbinds_the_name():
    body, read = make()
    get_state, set_state = state_functions(None, None, ("total", "later"), (body,))
    set_state((2, 3))
    set_state((2, Undefined("later")))
    assert read() == (2, None)  # reading it raises NameError, as in Python
    assert type(get_state()[1]) is Undefined


def test_a_loop_body_counted_while_unrolling_is_looked_through():
    body, read = make()

    def counted(*args):
        return body(*args)

    counted.__wrapped__ = body
    get_state, _ = state_functions(None, None, ("total",), (counted,))
    assert get_state() == (1,)


def test_a_name_no_helper_closes_over_is_an_internal_error():
    body, _ = make()
    with pytest.raises(AssertionError, match="no helper of this statement closes over missing"):
        state_functions(None, None, ("total", "missing"), (body,))


def test_given_functions_and_no_names():
    def get():
        return (1,)

    def put(values):
        pass

    assert state_functions(get, put, ("x",), ()) == (get, put)
    get_state, set_state = state_functions(None, None, (), ())
    assert get_state() == () and set_state(()) is None


class Box:
    pass


def composites():
    box = Box()
    box.items = {"v": [1, 2, 3]}
    pending = Box()
    del pending  # unbound: its cell is empty

    def body():
        box.items["v"][2] = 30
        pending.x = 1  # noqa: F821 - the cell of a deleted local

    return body, box


def test_a_composite_is_read_and_written_through_its_roots_cell():
    body, box = composites()
    names = ("box.items['v'][2]", "box.items", "box.extra", "box.items['w']", "box.items['v'][7]")
    get_state, _ = state_functions(None, None, names, (body,))
    value, items, extra, missing_key, missing_index = get_state()
    assert value == 3 and items is box.items
    for undefined, name in [(extra, "box.extra"), (missing_key, "box.items['w']"), (missing_index, "box.items['v'][7]")]:
        assert type(undefined) is Undefined and undefined.symbol_name == name
    _, set_four = state_functions(None, None, names[:4], (body,))
    set_four((33, box.items, "new", 4))
    assert box.items == {"v": [1, 2, 33], "w": 4} and box.extra == "new"


def test_a_composite_on_an_unbound_root_reads_as_undefined_and_writing_it_raises_name_error():
    body, _ = composites()
    get_state, set_state = state_functions(None, None, ("pending.x",), (body,))
    (value,) = get_state()
    assert type(value) is Undefined and value.symbol_name == "pending.x"
    with pytest.raises(NameError, match="pending"):
        set_state((1,))


def test_a_composite_whose_object_refuses_the_write_raises_as_python_does():
    values = (1, 2)

    def body():
        return values[0]

    get_state, set_state = state_functions(None, None, ("values[0]",), (body,))
    assert get_state() == (1,)
    with pytest.raises(TypeError):
        set_state((5,))
