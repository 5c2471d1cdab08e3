"""Lock owners: which process took a job's lock, and whether it still runs."""

from __future__ import annotations

import os
import socket
from pathlib import Path

# A job's lock outlives the process that took it when that process is killed (kill -9, OOM, power
# loss). Its owner is recorded as host:pid:start so that a restarted process can tell a dead
# owner from a live one and take the lock at once, instead of waiting out its TTL; the start
# token (boot id + the process's start tick) tells a recycled pid from the original process.


def _start_token(pid: int) -> str | None:
    try:
        stat = Path(f'/proc/{pid}/stat').read_text()
        boot = Path('/proc/sys/kernel/random/boot_id').read_text().strip()
    except OSError:
        return None
    # the command name may hold spaces and parentheses: fields after the last ')' are fixed
    return f'{boot[:8]}.{stat.rsplit(")", 1)[1].split()[19]}'


def process_owner() -> str:
    """This process as a lock owner: `host:pid:start-token`."""
    pid = os.getpid()
    return f'{socket.gethostname()}:{pid}:{_start_token(pid) or "-"}'


def owner_alive(owner: str) -> bool:
    """False only when `owner` (from `process_owner`) is surely gone: a process of this host
    whose pid no longer runs, or now runs another program. Unknown owners count as alive."""
    host, _, rest = owner.partition(':')
    pid_text, _, token = rest.partition(':')
    if host != socket.gethostname() or not pid_text.isdigit():
        return True  # another machine (or an old record): only its TTL can free the lock
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, as another user
    if token in ('', '-'):
        return True
    current = _start_token(pid)
    return current is None or current == token
