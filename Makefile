# The two commands of the README: `make demo` and `make test`.
.PHONY: demo test lint bench

demo:
	@scripts/setup
	.venv/bin/soulscope

test:
	@scripts/setup test
	.venv/bin/python -m pytest -q

lint:
	@scripts/setup test
	.venv/bin/python -m pip -q install ruff
	.venv/bin/ruff check soulscope tests bench

bench:
	@scripts/setup test
	for b in bench/*.py; do .venv/bin/python $$b || exit 1; done
