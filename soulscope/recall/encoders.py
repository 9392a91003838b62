"""Which encoder embeds: the one factory every face gets its encoder from.

The ``[embeddings]`` endpoint (``endpoint``) when it has a base URL, else the bundled MiniLM
(``semantic``), with the static model distilled from it (``static``) answering until MiniLM's
vectors are all made. Kept apart from all three so that none imports another.
"""

from __future__ import annotations

import threading

from soulscope.config import Settings
from soulscope.recall.endpoint import EmbeddingEndpoint, EndpointEncoder
from soulscope.recall.semantic import LOCAL_NAME, Encoder, MiniLM
from soulscope.recall.static import STATIC_NAME, load_static

_encoders: dict[tuple[object, ...], Encoder] = {}
_encoders_lock = threading.Lock()


def load_encoder(settings: Settings) -> Encoder:
    """The configured encoder: the ``[embeddings]`` endpoint when it has a base URL, else MiniLM.

    Every face that embeds (search, ask, chat, the Chat tab, semantic drift, distillation) gets its
    encoder here, so ``[embeddings]`` is honoured everywhere; one encoder per configuration is
    shared by the process, so the dashboard loads the model once for all its tabs.
    """
    endpoint = EmbeddingEndpoint.from_settings(settings)
    key: tuple[object, ...] = (endpoint,) if endpoint else ("local", settings.embed_device)
    with _encoders_lock:  # two workers asking at once load one model
        encoder = _encoders.get(key)
        if encoder is None:
            encoder = (
                EndpointEncoder(endpoint) if endpoint else MiniLM(device=settings.embed_device)
            )
            _encoders[key] = encoder
    return encoder


def encoder_name(settings: Settings) -> str:
    """The name the configured encoder's vectors are cached under, without loading it."""
    endpoint = EmbeddingEndpoint.from_settings(settings)
    return endpoint.cache_name if endpoint else LOCAL_NAME


def static_first(settings: Settings) -> bool:
    """Whether the static model answers while the configured encoder's vectors are made: it is
    distilled from the bundled MiniLM, so only when MiniLM is that encoder (no endpoint)."""
    return EmbeddingEndpoint.from_settings(settings) is None


def load_stage(settings: Settings, name: str) -> Encoder:
    """The encoder whose vectors are cached under ``name``: the static model (which must have
    been distilled) or the configured one."""
    if name == STATIC_NAME:
        return load_static(distil_absent=False)
    return load_encoder(settings)


def model_label(name: str) -> str:
    """What a user is told answered, for the encoder named ``name``."""
    if name == STATIC_NAME:
        return "static model"
    if name.startswith(LOCAL_NAME):
        return "MiniLM"
    return name.removeprefix("endpoint:")
