"""The errors soulscope raises for what a user can cause, under one base class.

Each face catches ``SoulscopeError`` once and shows its message as one sentence: the CLI prints it
and exits non-zero (``CommandError.code``, else 2), the dashboard shows it as a notification. Any
other exception is a bug: the CLI lets it end with its traceback, the dashboard says "soulscope
hit a bug" and writes the traceback to a log file whose path it names.

The tree (each defined beside the code that raises it)::

    SoulscopeError
    ├── WorldError          soulscope.world: a world, agent id or soul file that cannot be read
    │   ├── LockedError     soulscope.sim.lock: another process is advancing the world
    │   ├── RepoError       soulscope.sim.repo: the world's git repository refuses a frame
    │   └── RecoveryError   soulscope.sim.journal: a frame cut short cannot be recovered
    ├── HistoryError        soulscope.history.git: no repository, unknown revision, no history
    ├── GraphError          soulscope.history.graph: a window of dates that is not one
    ├── RecallError         soulscope.recall.hybrid: a search that cannot be run
    ├── EncoderError        soulscope.recall.semantic: the embedding model or endpoint failed
    ├── LLMError            soulscope.llm: the LLM endpoint is down or answered garbage
    ├── DecisionError       soulscope.sim.actions: an agent's decision is not a valid one
    ├── CommandError        soulscope.cli.output: a command's arguments cannot be acted on
    └── LoadError           soulscope.tui.loader: a soul could not be loaded for the dashboard

A new error subclasses the nearest of these (or ``SoulscopeError``) and needs no new handler.
"""

from __future__ import annotations


class SoulscopeError(Exception):
    """Something a user can fix or must know, said in one sentence (its ``str``)."""
