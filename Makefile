# Two commands do all the setup: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: setup demo test bench bench-rules bench-transport bench-tournament proto clean

setup: $(STAMP)

$(STAMP): pyproject.toml sdk/python/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ./sdk/python -e '.[dev]'
	touch $(STAMP)

demo: setup
	$(VENV)/bin/spite tournament tournaments/demo.toml

test: setup
	$(PY) -m pytest -q

bench-rules: setup
	$(PY) bench/rules_speed.py

bench-tournament: setup
	$(PY) bench/tournament_speed.py

bench-transport: setup
	$(PY) bench/transport_speed.py

bench: bench-rules bench-transport bench-tournament

proto: setup
	$(PY) sdk/python/generate.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
