"""The dashboard's dialogs, one module each, every one a ``Dialog`` (``base.py``).

A new dialog is one module here: a class on ``Dialog[R]`` (``R``: what it is dismissed with)
whose keys are ``bindings("<its id>")`` of ``soulscope/tui/actions.py``, that reaches the app
through ``self.dashboard`` and asks it (never a pane) for what it shows and what it opens.
"""
