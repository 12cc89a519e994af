# Two commands do all the setup: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
ENGINE_BUILD := engine/spite_engine/compiled.json
ENGINE_SOURCES := $(wildcard engine/spite_engine/*.py engine/spite_engine/*.pxd sdk/python/spite_sdk/policies.py sdk/python/spite_sdk/planning.py sdk/python/spite_sdk/tactics.py)

.PHONY: setup sandbox browser demo test test-slow test-all test-under-load test-load-subset bench bench-rules bench-transport bench-referee bench-hosting bench-live bench-tournament bench-ladder bench-soak bench-dask bench-bots bench-search bench-sandbox proto clean

setup: $(STAMP) $(ENGINE_BUILD) sandbox browser

# The bot sandbox: bubblewrap, installed where no password is needed (docs/security.md).
sandbox:
	@.ci/install-bubblewrap

# Debian's chromium for the browser tests (tests/web), when missing and root or sudo is at hand.
browser:
	@bash .ci/install-chromium

$(STAMP): pyproject.toml engine/pyproject.toml wire/pyproject.toml sdk/python/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ./engine -e ./wire -e ./sdk/python -e '.[dev]'
	touch $(STAMP)

# The compiled engine (spite_engine.compiled): the engine's hot modules, the SDK's reference
# policies and the tactician's search built by Cython from their own sources, rebuilt when a source changes; without a C
# compiler the Python sources run (and tests/rules/test_compiled.py says so).
$(ENGINE_BUILD): $(STAMP) engine/compile.py $(ENGINE_SOURCES)
	$(PY) engine/compile.py spite_engine spite_sdk || true

demo: setup
	$(VENV)/bin/spite tournament leagues/demo.toml

# The suite on several workers (pytest-xdist): one per core, at most 4; TEST_WORKERS=0 runs it
# in this process. --dist loadfile (pyproject.toml) keeps each file on one worker (tests/conftest.py).
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)

# `make test`: the suite a change is tested with (5 min 17 s on 2 cores idle), everything
# but the slow suites (@pytest.mark.slow: builds in five toolchains, the arena end to end,
# Dask, whole strong-bot matches) and the `alone` tests. `make test-slow` runs those slow
# suites, `make test-all` both in one run; .ci/run runs `make test`, `make test-slow` and
# `make test-load-subset`, so CI runs every test.
test: setup
	$(PY) -m pytest -q -n $(TEST_WORKERS) -m "not slow and not alone"

test-slow: setup
	$(PY) -m pytest -q -n $(TEST_WORKERS) -m "slow and not alone"

test-all: setup
	$(PY) -m pytest -q -n $(TEST_WORKERS) -m "not alone"

# make test's suite (or LOAD_TESTS) beside LOAD busy processes (bench/hogs.py), for LOAD_SECONDS at most:
# no test may depend on an idle machine (README, "Testing"; docs/performance.md has the times).
LOAD ?= 8
LOAD_SECONDS ?= 3600
LOAD_TESTS ?=
test-under-load: setup
	$(PY) bench/hogs.py $(LOAD) --seconds $(LOAD_SECONDS) -- env LOAD=$(LOAD) $(PY) -m pytest -q -n $(TEST_WORKERS) \
		$(if $(LOAD_TESTS),$(LOAD_TESTS),-m "not slow and not alone")

# What .ci/run runs beside 8 busy processes: the tests of time limits, kills, waits and pages that
# failed under load before; then, after them, the `alone` tests (the league beside its own
# eight hogs), so that neither runs beside the other's hogs as well (a few minutes).
LOAD_SUBSET := tests/referee/test_platform.py \
	tests/referee/test_sandbox.py::test_a_memory_hog_is_killed_by_the_memory_limit \
	tests/referee/test_sandbox.py::test_pause_freezes_the_whole_bot_and_cpu_counts_every_process \
	tests/referee/test_tokens.py tests/referee/test_protocol.py tests/referee/test_inputs.py \
	tests/cli/test_crashing_bot.py tests/web/test_live.py
test-load-subset: setup
	$(MAKE) test-under-load LOAD=8 LOAD_SECONDS=1200 LOAD_TESTS="$(LOAD_SUBSET)"
	$(PY) -m pytest -q -m alone tests

bench-rules: setup
	$(PY) bench/rules_speed.py

bench-tournament: setup
	$(PY) bench/tournament_speed.py --rounds 40 --parallel 2 --transport stdio-protobuf grpc

# The hosted ladder (spite serve, house bots) beside the league (spite tournament), same bots, same run.
bench-ladder: setup
	$(PY) bench/ladder_speed.py --seconds 60 --rounds 40 --parallel 2

# The memory soak (issue 24): spite serve with the house bots, warm workers and a remote bot
# through the lobby plays GAMES games while the RSS of every process is sampled (GAMES=2000: quick).
GAMES ?= 20000
bench-soak: setup
	$(PY) bench/soak.py --games $(GAMES)
bench-dask: setup
	$(PY) bench/dask_speed.py --rounds 10 --workers 2

bench-transport: setup
	$(PY) bench/transport_speed.py

bench-referee: setup
	$(PY) bench/referee_load.py --matches 50 --seconds 15 --full

# What a hosted ladder game's live feed costs the referee per decision (docs/performance.md).
bench-live: setup
	$(PY) bench/live_feed.py --matches 50 --seconds 5 --rounds 3

bench-hosting: setup
	$(PY) bench/referee_load.py --matches 1000 --think 1 --jitter 0.5 --seconds 60 --no-echo

# Sample bots' strength (docs/bots.md): duplicate deals in process on both cores, then the
# sampler through the referee under its time control; each line alone works too.
bench-bots: setup bench-search
	$(PY) bench/bot_strength.py --rules skip-bo+short-20 --games 2000 --markdown --pairs tactician:h13-like,tactician:skipbo-naive,tactician:planner,planner:h13-like,planner:skipbo-naive,h13-like:skipbo-naive,skipbo-naive:naive,greedy:skipbo-naive,greedy:h13-like,greedy:planner,naive:skipbo-naive,naive:h13-like,naive:planner,random:skipbo-naive,random:h13-like,random:planner
	$(PY) bench/bot_strength.py --rules standard --games 2000 --markdown --pairs tactician:planner,tactician:greedy,tactician:naive
	$(PY) bench/bot_strength.py --rules skip-bo+short-20 --games 400 --samples 8 --markdown --pairs sampler:skipbo-naive,sampler:h13-like,sampler:planner
	$(PY) bench/bot_strength.py --rules standard --games 2000
	$(PY) bench/bot_strength.py --rules skip-bo+short-20 --pairs planner:naive --games 10000
	$(PY) bench/bot_strength.py --rules standard --pairs sampler:planner --games 300 --samples 8
	$(PY) bench/bot_strength.py --rules standard --pairs sampler:naive,sampler:random --games 200 --samples 8
	$(PY) bench/bot_strength.py --rules standard --pairs sampler:planner --games 1000 --referee
	$(PY) bench/bot_strength.py --rules standard --pairs sampler:tactician --games 200 --referee

# The searcher against the tactician (docs/bots.md, "The searcher version 4" and "version 3").
# Version 4 scores its rollouts by a position value fitted on tactician self-play: the fit of
# each rule set's weights (spite_sdk.value.FITTED), then version 4 in process at a fixed rollout
# count on version 3's deals, then through the referee as shipped (1 s / 10 s), and with the
# clock alone deciding the rollouts at 0.1 and 0.3 s per decision, and at 1 s with three times
# the shipped rollout count (its scaling); the tactician's weights changed one at a time against
# the shipped ones (has its policy room left?), and the searcher with the one that won; expert
# iteration (bench/expert.py: the searcher's differences collected, the apprentice's model
# fitted, spite_sdk.apprentice.FITTED, the apprentice and the searcher over it measured; a
# second round in Skip-Bo; about 2.5 hours). Then version 3
# ({"value": false}: stock cards at the leaf): in process, version 2's gate at twice the
# rollouts, the two bounds ("What better worlds could give the searcher": the search on the
# true state, and on the rivals' true hands only), and the clock alone deciding the rollouts
# at 0.1 and 0.3 s per decision (the scaling table).
bench-search: setup
	$(PY) bench/fit_value.py --rules skip-bo+short-20 --games 3000
	$(PY) bench/fit_value.py --rules standard --games 3000
	for rules in skip-bo+short-20:2026 skip-bo+short-20:2027 standard:2026; do \
	    $(PY) bench/bot_strength.py --rules $${rules%:*} --seed $${rules#*:} --pairs searcher:tactician --games 200 --rollouts 120 --jobs 1 || exit 1; done
	$(PY) bench/bot_strength.py --rules standard --pairs searcher:tactician --games 1000 --referee
	$(PY) bench/bot_strength.py --rules skip-bo+short-20 --pairs searcher:tactician --games 1000 --referee
	for ms in 100 300; do $(PY) bench/bot_strength.py --rules skip-bo+short-20 --pairs searcher:tactician --games 1000 --referee \
	    --decision-ms $$ms --env searcher:SPITE_SEARCHER_ROLLOUTS=1000000 --env searcher:SPITE_SEARCHER_MS=$$((ms * 6 / 10)) || exit 1; done
	$(PY) bench/bot_strength.py --rules skip-bo+short-20 --pairs searcher:tactician --games 1000 --referee --env searcher:SPITE_SEARCHER_ROLLOUTS=720
	for w in '{"empty_hand": 7.5}' '{"empty_hand": 30}' '{"hand_card": 1.5}' '{"hand_card": 6}' '{"pile_card": -0.75}' '{"pile_card": -3}' \
	    '{"wild": 7.5}' '{"wild": 30}' '{"danger0": 60}' '{"danger0": 240}' '{"danger1": 15}' '{"danger1": 60}' '{"danger2": 3}' \
	    '{"danger2": 12}' '{"discard_wild": 10}' '{"discard_wild": 40}'; do \
	    $(PY) bench/bot_strength.py --rules skip-bo+short-20 --pairs tactician:tactician --games 4000 --seed 5 --weights "$$w" || exit 1; done
	for w in -3 -4.5 -6; do $(PY) bench/bot_strength.py --rules skip-bo+short-20 --pairs tactician:tactician --games 4000 --seed 6 \
	    --weights "{\"pile_card\": $$w}" || exit 1; done
	for w in -3 -4.5; do $(PY) bench/bot_strength.py --rules standard --pairs tactician:tactician --games 4000 --seed 5 \
	    --weights "{\"pile_card\": $$w}" || exit 1; done
	for rules in skip-bo+short-20 standard; do $(PY) bench/bot_strength.py --rules $$rules --pairs searcher:tactician --games 200 \
	    --rollouts 120 --jobs 1 --seed 2026 --weights '{"pile_card": -3}' || exit 1; done
	mkdir -p build/expert
	for rules in skip-bo+short-20 standard; do \
	    $(PY) bench/expert.py collect --rules $$rules --games 800 --out build/expert/$$rules.jsonl && \
	    $(PY) bench/expert.py fit build/expert/$$rules.jsonl --out build/expert/$$rules.json && \
	    $(PY) bench/bot_strength.py --rules $$rules --pairs apprentice:tactician --games 2000 --seed 5 --jobs 1 && \
	    $(PY) bench/bot_strength.py --rules $$rules --pairs apprentice:tactician --games 2000 --seed 6 --jobs 1 && \
	    $(PY) bench/expert.py duel --rules $$rules --model build/expert/$$rules.json --games 200 --seed 2026 --jobs 1 \
	        --first apprentice,searcher-apprentice,searcher-ordered || exit 1; done
	$(PY) bench/bot_strength.py --rules skip-bo+short-20 --pairs apprentice:h13-like,apprentice:tactician --games 2000 --jobs 1
	$(PY) bench/expert.py collect --rules skip-bo+short-20 --games 400 --seed 32 --jobs 1 \
	    --apprentice build/expert/skip-bo+short-20.json --out build/expert/skip-bo+short-20-2.jsonl
	cat build/expert/skip-bo+short-20.jsonl build/expert/skip-bo+short-20-2.jsonl > build/expert/skip-bo+short-20-12.jsonl
	for round in 2 12; do $(PY) bench/expert.py fit build/expert/skip-bo+short-20-$$round.jsonl --out build/expert/skip-bo+short-20-$$round.json && \
	    for seed in 5 6; do $(PY) bench/expert.py duel --rules skip-bo+short-20 --model build/expert/skip-bo+short-20-$$round.json \
	        --games 2000 --seed $$seed || exit 1; done || exit 1; done
	for rules in skip-bo+short-20:2026 skip-bo+short-20:2027 standard:2026; do \
	    $(PY) bench/bot_strength.py --rules $${rules%:*} --seed $${rules#*:} --pairs searcher:tactician --games 200 --rollouts 120 --jobs 1 --searcher-options '{"value": false}' && \
	    $(PY) bench/bot_strength.py --rules $${rules%:*} --seed $${rules#*:} --pairs searcher-oracle:tactician --games 200 --rollouts 36 --jobs 1 --searcher-options '{"value": false}' && \
	    $(PY) bench/bot_strength.py --rules $${rules%:*} --seed $${rules#*:} --pairs searcher-hands:tactician --games 200 --rollouts 120 --jobs 1 --searcher-options '{"value": false}' \
	    || exit 1; done
	$(PY) bench/bot_strength.py --rules skip-bo+short-20 --pairs searcher:tactician --games 200 --rollouts 240 --jobs 1 --seed 2026 --searcher-options '{"gate": 25, "value": false}'
	for ms in 100 300 1000; do $(PY) bench/bot_strength.py --rules skip-bo+short-20 --pairs searcher:tactician --games 1000 --referee \
	    --decision-ms $$ms --env searcher:SPITE_SEARCHER_ROLLOUTS=1000000 --env searcher:SPITE_SEARCHER_MS=$$((ms * 6 / 10)) \
	    --env searcher:SPITE_SEARCHER_VALUE=0 || exit 1; done

bench-sandbox: setup
	$(PY) bench/sandbox_cost.py

bench: bench-rules bench-transport bench-referee bench-tournament bench-sandbox

proto: setup
	$(PY) wire/generate.py

clean:
	$(PY) engine/compile.py --clean spite_engine spite_sdk || true
	rm -rf $(VENV) .pytest_cache .hypothesis
