"""Settings for the whole suite: hypothesis without timing checks, IR checks around every pass.

The suite runs on shared machines whose cores other work takes at any moment, so
hypothesis' timing checks (a per-example deadline, "input generation is slow")
fail tests that found nothing wrong. The profile turns them off for every test;
a test's own @settings still sets everything else (examples, seed, database).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

from autograph.python_mode import set_fast_calls

settings.register_profile("autograph", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("autograph")

# Every graph the suite compiles has its IR invariants checked around each optimisation pass.
os.environ["AUTOGRAPH_VERIFY_PASSES"] = "1"

# `ag.convert(f)` returns the converted code itself, not a copy of `f` that runs f's own code outside
# traces (autograph/python_mode.py): every test comparing it with `f` runs converted code on Python
# values. tests/autograph/test_python_mode.py turns the copies back on where it tests them.
set_fast_calls(False)
