# The README's two set-up commands are `make app` and `make test`; each builds .venv itself.
.PHONY: app test test-fast test-slow lint bench screenshots

PORT ?= 8501
# set-up steps (benchmarks/bench_test_tiers.py times a tier without them: SETUP=: BROWSER=:)
SETUP = bash scripts/setup_env.sh
BROWSER = bash scripts/install_browser.sh
# The fast tier (CONTRIBUTING.md, "Test tiers"): unit tests and doctests, no pages, no
# processes, no networks, no real data; Hypothesis' `fast` profile (10 examples a property).
FAST_MARKERS = not slow and not gpu and not browser and not apptest and not integration and not datasets

app:
	bash scripts/setup_env.sh runtime
	.venv/bin/streamlit run app.py --server.port $(PORT)

test:
	$(SETUP) dev
	$(BROWSER)
	.venv/bin/ruff check .
	.venv/bin/mypy
	.venv/bin/pytest -n 2 --dist loadgroup

test-fast:
	$(SETUP) dev
	.venv/bin/ruff check .
	.venv/bin/mypy
	PUDD_HYPOTHESIS_PROFILE=fast .venv/bin/pytest -n 2 -m "$(FAST_MARKERS)"

test-slow:
	bash scripts/setup_env.sh dev
	bash scripts/install_browser.sh
	.venv/bin/pytest -m slow

lint:
	.venv/bin/ruff check .
	.venv/bin/mypy

bench:
	bash scripts/setup_env.sh dev
	.venv/bin/python -m benchmarks.run_all

screenshots:
	bash scripts/setup_env.sh dev
	bash scripts/install_browser.sh
	PUDD_UPDATE_SCREENSHOTS=1 PUDD_RESULTS_STORE=$(CURDIR)/results/store \
		.venv/bin/pytest tests/app/test_browser.py tests/app/test_browser_course.py -m browser
