"""resolution: module names and our decorators, statically and from live globals."""

import gast
import numpy as np

import autograph as ag
from autograph.source.resolution import LiveNames, StaticNames, dotted_name


def expr(text: str) -> gast.expr:
    return gast.parse(text, mode="eval").body


def test_static_names():
    module = gast.parse(
        "import numpy as np\nimport autograph as ag\nfrom autograph import function as fn\nlen = 3\n"
    )
    names = StaticNames.of_module(module)
    assert names.module_of("np") == "numpy"
    assert names.is_ours_decorator(expr("ag.function"))
    assert names.is_ours_decorator(expr("fn(input_signature=None)"))
    assert names.is_ours_decorator(expr("ag.do_not_convert"))
    assert not names.is_function_decorator(expr("ag.do_not_convert"))
    assert not names.is_ours_decorator(expr("other.function"))
    assert names.value_of("len") is None
    assert names.value_of("print") is print


my_alias = ag.function


def sample(x):
    return np.sum(x)


def test_live_names():
    names = LiveNames(sample)
    assert names.module_of("np") == "numpy"
    assert names.is_ours_decorator(expr("my_alias"))
    assert names.is_ours_decorator(expr("ag.function(autograph=True)"))
    assert not names.is_ours_decorator(expr("staticmethod"))
    assert dotted_name(expr("a.b.c(1)")) == "a.b.c"
