# The README's two set-up commands are `make app` and `make test`; each builds .venv itself.
.PHONY: app test test-slow lint bench screenshots

PORT ?= 8501

app:
	bash scripts/setup_env.sh runtime
	.venv/bin/streamlit run app.py --server.port $(PORT)

test:
	bash scripts/setup_env.sh dev
	bash scripts/install_browser.sh
	.venv/bin/ruff check .
	.venv/bin/mypy
	.venv/bin/pytest

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
