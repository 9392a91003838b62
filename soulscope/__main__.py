"""``python -m soulscope``."""

from soulscope.cli import main

raise SystemExit(main())
