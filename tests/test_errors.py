"""One error tree: every error a user can cause is a SoulscopeError, and the CLI says it once."""

from __future__ import annotations

import argparse

import pytest

from soulscope.errors import SoulscopeError


def test_every_user_error_is_a_soulscope_error() -> None:
    from soulscope.cli.output import CommandError
    from soulscope.history.git import HistoryError
    from soulscope.llm import LLMError
    from soulscope.recall.hybrid import RecallError
    from soulscope.recall.semantic import EncoderError
    from soulscope.sim.brain import DecisionError
    from soulscope.sim.journal import RecoveryError
    from soulscope.sim.lock import LockedError
    from soulscope.sim.repo import RepoError
    from soulscope.world import WorldError

    for kind in (
        LLMError, CommandError, HistoryError, RecallError, EncoderError, DecisionError,
        RecoveryError, LockedError, RepoError, WorldError,
    ):  # fmt: skip
        assert issubclass(kind, SoulscopeError), kind
    assert not issubclass(DecisionError, ValueError)  # a bad decision is not a bad value


def test_the_cli_says_any_soulscope_error_in_one_line(monkeypatch, capsys) -> None:
    from soulscope import cli
    from soulscope.recall.hybrid import RecallError

    def fails(args: argparse.Namespace) -> int:
        raise RecallError("hybrid search needs the embedding model, which is not loaded yet")

    real = cli.build_parser

    def parser(*areas: object) -> argparse.ArgumentParser:  # the areas the command needs
        p = real(*areas)
        p._subparsers._group_actions[0].choices["agents"].set_defaults(run=fails)
        return p

    monkeypatch.setattr(cli, "build_parser", parser)
    assert cli.main(["agents"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not loaded yet" in err and "Traceback" not in err


def test_a_bug_is_not_turned_into_a_sentence(monkeypatch) -> None:
    from soulscope import cli

    def buggy(args: argparse.Namespace) -> int:
        raise KeyError("frame_index")

    real = cli.build_parser

    def parser(*areas: object) -> argparse.ArgumentParser:  # the areas the command needs
        p = real(*areas)
        p._subparsers._group_actions[0].choices["agents"].set_defaults(run=buggy)
        return p

    monkeypatch.setattr(cli, "build_parser", parser)
    with pytest.raises(KeyError):
        cli.main(["agents"])
