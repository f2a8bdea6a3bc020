"""A conversion runs with the cyclic garbage collector paused, and leaves no cycles behind."""

from __future__ import annotations

import gc

import pytest

import autograph as ag
from autograph import live_conversion
from autograph.analysis.cfg import CfgNode
from runtime.ir.errors import ConversionError


def _loop(n):
    total = 0
    while n > 1:
        if n % 2:
            total += n
        n -= 1
    return total


def _generator(x):
    yield x


@pytest.fixture
def collector_state():
    was_enabled = gc.isenabled()
    yield
    if was_enabled:
        gc.enable()
    else:
        gc.disable()


def test_collector_is_off_during_a_conversion_and_on_after(monkeypatch, collector_state):
    seen = []
    original = live_conversion.generate

    def generate(fn):
        seen.append(gc.isenabled())
        return original(fn)

    monkeypatch.setattr(live_conversion, "generate", generate)
    gc.enable()
    ag.convert(lambda x: x + 1)
    assert seen == [False]
    assert gc.isenabled()


def test_collector_is_on_again_after_a_failed_conversion(collector_state):
    gc.enable()
    with pytest.raises(ConversionError):
        ag.convert(_generator)
    assert gc.isenabled()


def test_collector_the_caller_turned_off_stays_off(collector_state):
    gc.disable()
    assert ag.convert(lambda x: x * 2)(3) == 6
    assert not gc.isenabled()


def test_conversion_leaves_no_control_flow_graph_for_the_collector(collector_state):
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        converted = ag.convert(_loop)
        gc.collect()
        left = [obj for obj in gc.garbage if isinstance(obj, CfgNode)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert converted(5) == 8
    assert left == []
