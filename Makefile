# Every target does its own set-up: a fresh clone needs only Python 3.10+.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint fuzz golden bench bench-quick clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m autograph.demo fixtures/collatz.py

test: $(STAMP)
	$(PY) -m ruff check autograph runtime tests bench
	$(PY) -m pytest -m "not slow"

fuzz: $(STAMP)
	$(PY) -m pytest -m slow

golden: $(STAMP)
	$(PY) -m tests.autograph.test_golden --update

bench: $(STAMP)
	$(PY) -m bench.run

bench-quick: $(STAMP)
	$(PY) -m bench.run --quick

clean:
	rm -rf $(VENV) build *.egg-info
