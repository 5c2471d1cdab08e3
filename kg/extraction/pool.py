"""Helpers of the worker-process pool: read-ahead of parsed parts, fixed part-to-worker slots."""

from __future__ import annotations

import queue
import threading
from collections.abc import Generator, Iterator
from typing import Any

_DONE = object()


def read_ahead(items: Iterator[Any], depth: int) -> Generator[Any, None, None]:
    """The items of `items`, produced by a thread up to `depth` ahead of the consumer.

    An exception in the producer is raised to the consumer; a consumer that stops early stops
    the producer at its next item.
    """
    ready: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def offer(entry: tuple[Any, BaseException | None]) -> bool:
        while not stop.is_set():
            try:
                ready.put(entry, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not offer((item, None)):
                    return
            offer((_DONE, None))
        except BaseException as exc:  # handed to the consumer, which raises it
            offer((_DONE, exc))

    thread = threading.Thread(target=produce, name='extract-read-ahead', daemon=True)
    thread.start()
    try:
        while True:
            item, error = ready.get()
            if error is not None:
                raise error
            if item is _DONE:
                return
            yield item
    finally:
        stop.set()
        close = getattr(items, 'close', None)
        thread.join(timeout=30)
        if not thread.is_alive() and close is not None:
            close()


def part_slots(parts: int, workers: int) -> list[int | None]:
    """Which worker parses each part (None: this process), fixed for a given shape.

    Of every 2·workers + 1 parts this process takes one: it also stores what the workers
    parse (resolution, name embeddings, Kuzu), so an equal share made it the slowest parser.
    Fixed slots mean each parser sees the same names in the same order on every run, so type
    votes, hence the result, are reproducible.
    """
    cycle = 2 * workers + 1
    return [None if j % cycle == cycle - 1 else (j % cycle) % workers for j in range(parts)]
