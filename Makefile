# The two commands of the README: `make demo` and `make test`.
.PHONY: demo test lint bench

# Python keeps the bytecode it compiles (its default, whatever the calling environment says):
# the test install is not byte-compiled by pip (scripts/setup), and each process of the suite
# would otherwise compile again every module it imports.
unexport PYTHONDONTWRITEBYTECODE

# demo-world/ is a copy of the built-in world (state/) with its own git repository, advanced 30
# offline frames; made once, then reused.
demo:
	@scripts/setup
	@[ -d demo-world/.git ] || .venv/bin/soulscope demo demo-world
	.venv/bin/soulscope demo-world

# The suite on every core (pytest-xdist; tests/conftest.py groups the tests that share a worker)
# and the wheel as a user installs it (a clean environment outside the checkout, its report
# printed after the tests'). The wheel's install runs beside scripts/setup's, not beside the
# suite: each pip takes one core, where the suite wants both. Either failure fails the command.
# WORKERS=0 runs the suite in this one process.
WORKERS ?= auto
test:
	@log=$$(mktemp); scripts/check-wheel > $$log 2>&1 & pid=$$!; \
	scripts/setup test && \
	.venv/bin/python -m pytest -q -n $(WORKERS) --dist loadgroup --durations=20; tests=$$?; \
	wait $$pid; wheel=$$?; cat $$log; rm -f $$log; \
	[ $$tests -eq 0 ] && [ $$wheel -eq 0 ]

# ruff (lint and format) and mypy at the versions pinned in pyproject.toml; mypy against a
# baseline that only shrinks.
lint:
	@scripts/setup test
	.venv/bin/ruff check soulscope tests bench scripts/gen-docs scripts/mypy-baseline
	.venv/bin/ruff format --check soulscope tests bench
	.venv/bin/python scripts/mypy-baseline

bench:
	@scripts/setup test
	for b in bench/*.py; do .venv/bin/python $$b || exit 1; done
