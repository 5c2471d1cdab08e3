"""`mnemos worker` for the two-process Redis test: the real worker entrypoint, with the vector
store pointed at the test's Qdrant stand-in (no Qdrant server exists on this machine)."""

from __future__ import annotations

import logging
import sys

import runtime.bootstrap
from core.settings import Settings
from runtime.worker import run_worker
from tests.integration.vector_server import RemoteVectorStore


def main() -> int:
    logging.basicConfig(level=logging.INFO, format='worker %(levelname)s %(name)s: %(message)s')
    runtime.bootstrap.build_vector_store = lambda s: RemoteVectorStore(s.qdrant_url)  # type: ignore
    return run_worker(Settings.load(), processes=1, threads=2)


if __name__ == '__main__':
    sys.exit(main())
