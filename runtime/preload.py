"""Start loading the embedding model before the API's modules import (`mnemos serve`).

A light part of the composition root: importing `runtime.bootstrap` would import the whole
service first, which is the work the preload is meant to run beside.
"""

from __future__ import annotations

from core.settings import Settings
from vectors.embedders import preload_model


def preload_embedder(settings: Settings) -> None:
    """Load the configured model on a thread; `build(settings)` then takes it (see
    `vectors.embedders.preload_model`)."""
    preload_model(
        settings.embedder, batch_size=settings.embed_batch_size, threads=settings.embed_threads
    )
