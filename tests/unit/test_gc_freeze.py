"""The start-up heap leaves the cyclic GC's reach: `freeze_startup_heap` freezes what is alive,
and `mnemos serve` calls it once its services are built, with the graph off."""

from __future__ import annotations

import argparse
import gc
import secrets
import socket
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runtime.gc_freeze import freeze_startup_heap


class _Node:
    """A GC-tracked object that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Any = None


@pytest.fixture(autouse=True)
def _unfrozen() -> Iterator[None]:
    # a frozen heap is never collected again: give the rest of the test run its GC back
    gc.unfreeze()
    yield
    gc.unfreeze()


def _collectable(obj: object) -> bool:
    """Whether a collection can still walk `obj` (a frozen object is in no generation)."""
    return any(o is obj for o in gc.get_objects())


def test_objects_alive_at_start_up_are_frozen_and_later_ones_are_not() -> None:
    kept = _Node()
    assert gc.get_freeze_count() == 0
    assert _collectable(kept)

    frozen = freeze_startup_heap()

    # a frozen object that dies later (a log record's temporaries, another thread's) leaves the
    # permanent generation, so the count can only have fallen since the freeze returned it
    assert 0 < gc.get_freeze_count() <= frozen
    assert not _collectable(kept)
    # what a request allocates later is collected as before
    after = _Node()
    after.other = after
    gone = weakref.ref(after)
    assert _collectable(after)
    del after
    gc.collect()
    assert gone() is None


@pytest.mark.parametrize('graph', [False, True])
def test_serve_freezes_the_built_app_before_it_serves_with_the_graph_off(
    graph: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import faulthandler
    import signal

    import api.app
    import api.serving
    import runtime.malloc_arenas
    import runtime.preload
    import runtime.stop
    from api.cli import serve

    class _App:
        def __init__(self) -> None:
            self.extensions = {'mnemos': _Node()}

    built: list[_App] = []
    seen: dict[str, Any] = {}

    def create_app(settings: Any) -> _App:
        built.append(_App())
        return built[-1]

    def waitress_serve(app: _App, **kwargs: Any) -> None:
        seen['frozen'] = gc.get_freeze_count()
        seen['services collectable'] = _collectable(app.extensions['mnemos'])

    monkeypatch.setenv('KG_DATA_DIR', str(tmp_path))
    monkeypatch.setenv('KG_API_TOKEN', secrets.token_hex(16))
    monkeypatch.setenv('KG_GRAPH_ENABLED', str(graph).lower())
    monkeypatch.setattr(api.app, 'create_app', create_app)
    monkeypatch.setattr(api.serving, 'serve', waitress_serve)
    # the real service's side effects: a model thread, a trim thread, process-wide handlers
    monkeypatch.setattr(runtime.preload, 'preload_embedder', lambda settings: None)
    monkeypatch.setattr(runtime.malloc_arenas, 'start_trimming', lambda: None)
    monkeypatch.setattr(runtime.malloc_arenas, 'limit_malloc_arenas', lambda: False)
    monkeypatch.setattr(runtime.stop, 'stop_process', lambda services, **_: None)
    monkeypatch.setattr(faulthandler, 'enable', lambda: None)
    monkeypatch.setattr(signal, 'signal', lambda *args: None)

    with socket.socket() as probe:  # a free port: serve first checks that it can bind it
        probe.bind(('127.0.0.1', 0))
        port = probe.getsockname()[1]
    serve(argparse.Namespace(host='127.0.0.1', port=port, threads=1))

    assert len(built) == 1
    if graph:  # the mirror grows after start-up: a freeze made full collections more frequent
        assert seen == {'frozen': 0, 'services collectable': True}
    else:  # frozen by the time it serves: no full collection walks the built services
        assert seen['frozen'] > 0
        assert seen['services collectable'] is False
