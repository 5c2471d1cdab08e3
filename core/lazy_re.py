"""Regular expressions compiled on first use instead of at import.

The write path's pattern tables (fact patterns, capture rules, the graph's question and Chinese
readers) hold a few hundred patterns; compiling them at import was ~0.1 s of every service start
on the 2-core reference machine, spent before `/healthz` answers, for patterns a start and a first
search mostly never run.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any, cast

# one lock for all: it is only taken on a pattern's first use
_COMPILING = threading.Lock()


def _unlock_in_child() -> None:
    # a fork while another thread compiled would leave the child's copy of the lock held for good
    global _COMPILING
    _COMPILING = threading.Lock()


os.register_at_fork(after_in_child=_unlock_in_child)


class LazyPattern:
    """Stands in for `re.compile(pattern, flags)` and compiles it on first use.

    Every attribute (`search`, `match`, `sub`, `flags`, `groupindex`, ...) is the compiled
    pattern's; once read, it is kept on the instance, so later calls reach the compiled
    pattern's bound method without another Python frame.
    """

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern; compiled once even when threads race to use it first."""
        compiled = self._compiled
        if compiled is None:
            with _COMPILING:
                compiled = self._compiled
                if compiled is None:
                    compiled = re.compile(self.pattern, self._flags)
                    self._compiled = compiled
        return compiled

    def __getattr__(self, name: str) -> Any:
        # only reached for names the instance does not hold yet
        if name.startswith('_'):
            raise AttributeError(name)
        value = getattr(self.compiled(), name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f'lazy_compile({self.pattern!r}, {self._flags})'


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled on first use (see `LazyPattern`).

    A bad pattern raises on first use, not at import: the tests that run each table's patterns
    catch it. Pass the result to a pattern's methods, not to `re.sub`/`re.match` and friends.
    """
    return cast(re.Pattern[str], LazyPattern(pattern, flags))
