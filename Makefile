# Every target does its own set-up: a fresh clone needs only Python 3.10+.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint fuzz golden bench bench-quick clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,onnx,jax]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m autograph.demo fixtures/collatz.py

test: $(STAMP)
	$(PY) -m ruff check autograph runtime tests bench
	$(PY) -m pytest -m "not slow"

# Long randomized runs from a fresh seed, printed first; `make fuzz FUZZ_SEED=<seed>` reruns
# one exactly (the seed also fixes hypothesis and string hashing). Mismatches are kept in
# .fuzz/ (see tests/autograph/fuzz_record.py).
FUZZ_SEED ?=
fuzz: $(STAMP)
	@seed=$(FUZZ_SEED); seed=$${seed:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}; \
	echo "fuzz seed $$seed (rerun: make fuzz FUZZ_SEED=$$seed)"; \
	FUZZ_SEED=$$seed PYTHONHASHSEED=$$seed $(PY) -m pytest -m slow --hypothesis-seed=$$seed

golden: $(STAMP)
	$(PY) -m tests.autograph.test_golden --update

# The TensorFlow side of the benchmarks lives in its own environment.
PEERS_VENV := bench/.venv-peers
PEERS_STAMP := $(PEERS_VENV)/.installed

$(PEERS_STAMP): bench/peers/requirements.txt
	test -x $(PEERS_VENV)/bin/python || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(PEERS_VENV)/bin/python -m pip install --quiet -r bench/peers/requirements.txt
	touch $(PEERS_STAMP)

bench: $(STAMP) $(PEERS_STAMP)
	$(PY) -m bench.run

bench-quick: $(STAMP)
	$(PY) -m bench.run --quick

clean:
	rm -rf $(VENV) build *.egg-info
