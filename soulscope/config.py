"""Settings: environment variables first, then an optional TOML file, then defaults.

The file is ``$SOULSCOPE_CONFIG`` or ``$XDG_CONFIG_HOME/soulscope/config.toml``::

    [llm]
    base_url = "http://127.0.0.1:8080/v1"
    base_urls = ["http://127.0.0.1:8082/v1"]  # more servers of the same model: a pool
    api_key = "..."
    model = "gemma"
    concurrency = 8       # requests in flight per server

    [embeddings]
    device = "cpu"        # cuda, mps or cpu; empty = automatic
    base_url = "http://127.0.0.1:8081/v1"  # an OpenAI-compatible /v1/embeddings endpoint instead
    model = "bge-small"   # the model it serves (vectors are cached under this name)
    api_key = "..."
    batch = 64            # texts per request
    concurrency = 4       # requests in flight
    timeout = 60          # seconds

    [soul]
    arc_label = "Becoming"

    [chat]
    user = "ann"          # whose users/ID.txt chats distil into (default: $SOULSCOPE_USER, $USER)
    interval = 5          # distil every N user turns
    drift = 0.25          # ...or earlier, when the topic drifts below this cosine
    dedup = 0.92          # skip a fact this similar to a written one (and sharing most words)

    [keys]                # the dashboard's keys, by action id (? in the dashboard lists the ids)
    "history.mark" = "M"
    "app.next_frame" = ["right_square_bracket", "l"]
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit


def config_path() -> Path:
    explicit = os.environ.get("SOULSCOPE_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "soulscope" / "config.toml"


def cache_dir() -> Path:
    explicit = os.environ.get("SOULSCOPE_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "soulscope"


def data_dir() -> Path:
    """Where soulscope keeps what is the user's, not a world's: what chats learnt about them."""
    explicit = os.environ.get("SOULSCOPE_DATA")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "soulscope"


@dataclass(frozen=True)
class Settings:
    base_url: str | None = None
    base_urls: tuple[str, ...] = ()  # a pool of LLM servers (the first is base_url)
    api_key: str | None = None
    model: str | None = None
    llm_timeout: float = 60.0
    llm_concurrency: int = 8  # requests in flight per LLM server
    embed_device: str | None = None
    embed_base_url: str | None = None
    embed_base_urls: tuple[str, ...] = ()  # a pool of servers (the first is embed_base_url)
    embed_model: str | None = None
    embed_api_key: str | None = None
    embed_batch: int = 64
    embed_concurrency: int = 4
    embed_timeout: float = 60.0
    arc_label: str | None = None
    chat_user: str | None = None
    distill_interval: int = 5
    distill_drift: float = 0.25
    distill_dedup: float = 0.92
    keys: Mapping[str, str] = field(default_factory=dict)  # dashboard action id -> keys
    keep_links: bool = True  # a listing that indexes changed files keeps their link tallies
    problem: str | None = None  # why the config file could not be read, if it could not

    @property
    def llm_configured(self) -> bool:
        return bool(self.base_url)


def load_settings(env: dict[str, str] | None = None) -> Settings:
    """Read settings; a broken config file is reported in ``problem``, never raised."""
    env = dict(os.environ) if env is None else env
    problems: list[str] = []
    path = (
        Path(env["SOULSCOPE_CONFIG"]).expanduser() if env.get("SOULSCOPE_CONFIG") else config_path()
    )
    data = _read_config(path, problems)
    llm, emb, soul, chat, index = (
        _section(data, n) for n in ("llm", "embeddings", "soul", "chat", "index")
    )

    def pick(var: str, section: dict, key: str) -> str | None:
        value = env.get(var) or section.get(key)
        return str(value) if value else None

    keys, keys_problem = _keys(data.get("keys", {}))
    if keys_problem:
        problems.append(keys_problem)
    number = partial(_number, problems)
    llm_timeout = number(
        "the LLM timeout", env.get("SOULSCOPE_LLM_TIMEOUT") or llm.get("timeout"), 60.0, 0.1, MAX_S
    )
    llm_urls = urls("llm", env.get("OPENAI_BASE_URL"), llm, problems)
    embed_urls = urls("embeddings", env.get("SOULSCOPE_EMBED_BASE_URL"), emb, problems)
    settings = Settings(
        base_url=llm_urls[0] if llm_urls else None,
        base_urls=llm_urls,
        api_key=pick("OPENAI_API_KEY", llm, "api_key"),
        model=pick("SOULSCOPE_MODEL", llm, "model"),
        llm_timeout=llm_timeout,
        llm_concurrency=int(number("[llm] concurrency", llm.get("concurrency"), 8, 1, 256)),
        embed_device=pick("SOULSCOPE_DEVICE", emb, "device"),
        embed_base_url=embed_urls[0] if embed_urls else None,
        embed_base_urls=embed_urls,
        embed_model=pick("SOULSCOPE_EMBED_MODEL", emb, "model"),
        embed_api_key=pick("SOULSCOPE_EMBED_API_KEY", emb, "api_key"),
        embed_batch=int(number("[embeddings] batch", emb.get("batch"), 64, 1, 100_000)),
        embed_concurrency=int(
            number("[embeddings] concurrency", emb.get("concurrency"), 4, 1, 256)
        ),
        embed_timeout=number("[embeddings] timeout", emb.get("timeout"), 60.0, 0.1, MAX_S),
        arc_label=pick("SOULSCOPE_ARC_LABEL", soul, "arc_label"),
        chat_user=pick("SOULSCOPE_USER", chat, "user") or env.get("USER") or None,
        distill_interval=int(number("[chat] interval", chat.get("interval"), 5, 1, 100_000)),
        distill_drift=number("[chat] drift", chat.get("drift"), 0.25, -1.0, 1.0),
        distill_dedup=number("[chat] dedup", chat.get("dedup"), 0.92, -1.0, 1.0),
        keys=keys,
        keep_links=_flag(
            problems, "[index] links", env.get("SOULSCOPE_KEEP_LINKS", index.get("links")), True
        ),
    )
    return replace(settings, problem="; ".join(problems) if problems else None)


def urls(table: str, variable: str | None, section: dict, problems: list[str]) -> tuple[str, ...]:
    """The servers of a pool that are URLs (see ``url_list``); the others are said and left out."""
    name = "the LLM base URL" if table == "llm" else f"the {table} base URL"
    found = (_url(problems, name, v) for v in url_list(variable, section, problems, table))
    return tuple(dict.fromkeys(u for u in found if u))


def url_list(variable: str | None, section: dict, problems: list[str], table: str) -> list[str]:
    """The servers of a pool: the variable's URLs (several, separated by commas or spaces), else
    the section's ``base_urls`` (a list) and ``base_url``."""
    if variable:
        return variable.replace(",", " ").split()
    listed = section.get("base_urls")
    found = [str(section["base_url"])] if section.get("base_url") else []
    if isinstance(listed, list) and all(isinstance(u, str) for u in listed):
        found += [u for u in listed if u not in found]
    elif listed is not None:
        problems.append(f"[{table}] base_urls should be a list of URLs; it is not used")
    return found


MAX_S = 86_400.0  # the longest timeout: a day (past it a socket's timeout overflows)


def _read_config(path: Path, problems: list[str]) -> dict:
    """The config file's tables; what is wrong with it is added to ``problems``."""
    data: object = {}
    try:
        if path.is_file():
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        elif path.exists():
            problems.append(f"the config file {path} is not a file; its settings are ignored")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        problems.append(f"the config file {path} cannot be read ({why}); its settings are ignored")
    return data if isinstance(data, dict) else {}


def _flag(problems: list[str], name: str, value: object, default: bool) -> bool:
    """A yes-or-no setting: true/false (TOML), or 1/0, yes/no, on/off; else the default, said."""
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    problems.append(
        f"{name} should be true or false, not {value!r}; {str(default).lower()} is used"
    )
    return default


def _section(data: dict, name: str) -> dict:
    section = data.get(name)
    return section if isinstance(section, dict) else {}


def _number(
    problems: list[str], name: str, value: object, default: float, low: float, high: float
) -> float:
    """A number of the settings within [low, high]; else the default, and said."""
    if value is None or value == "":
        return default
    try:
        if isinstance(value, bool):
            raise ValueError
        got = float(value) if isinstance(value, int | float | str) else float("nan")
    except (ValueError, OverflowError):
        got = float("nan")
    if not low <= got <= high:  # (NaN is never within)
        problems.append(
            f"{name} = {str(value)[:40]!r} is not a number from {low:g} to "
            f"{high:g}; {default:g} is used"
        )
        return default
    return got


def _url(problems: list[str], name: str, value: str | None) -> str | None:
    """A base URL, or None (and said) when it cannot be one: its text is not shown, since it
    may hold credentials."""
    if value is None:
        return None
    try:
        parts = urlsplit(value.strip() if "://" in value else "http://" + value.strip())
        parts.port  # noqa: B018 (a port that is not a number raises here)
        if not parts.hostname:
            raise ValueError("no host")
    except ValueError as exc:
        problems.append(f"{name} is not a URL ({exc}); it is not used")
        return None
    return value


def _keys(table: object) -> tuple[dict[str, str], str | None]:
    """The ``[keys]`` table as action id -> comma-separated keys, and what was wrong with it."""
    if not isinstance(table, dict):
        return {}, "the [keys] table of the config file is not a table of action ids"
    keys: dict[str, str] = {}
    bad: list[str] = []
    for action_id, value in table.items():
        if isinstance(value, str) and value.strip():
            keys[action_id] = value.strip()
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            keys[action_id] = ",".join(v.strip() for v in value)
        else:
            bad.append(action_id)
    problem = (
        f"in [keys], {', '.join(bad)} should be a key name or a list of key names" if bad else None
    )
    return keys, problem
