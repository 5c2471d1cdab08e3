"""Start loading the embedding model before `create_app` opens the stores (`mnemos serve`).

A light part of the composition root: `build` takes the model the preload loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from core.settings import Settings
from vectors.embedders import preload_model


class ModelChoice(TypedDict):
    """The `make_embedder` arguments that pick the model, and so the preload's key."""

    name: str
    batch_size: int
    threads: int
    cache_dir: Path | None


def model_choice(settings: Settings) -> ModelChoice:
    """The model `settings` pick. `build` and the preload both read it here: a preload made
    with other arguments than `build` uses would load the model twice."""
    return ModelChoice(
        name=settings.embedder,
        batch_size=settings.embed_batch_size,
        threads=settings.embed_threads,
        cache_dir=settings.model_cache_dir,
    )


def preload_embedder(settings: Settings) -> None:
    """Load the configured model on a thread; `build(settings)` then takes it (see
    `vectors.embedders.preload_model`)."""
    preload_model(**model_choice(settings))
