"""Importing the server's modules builds nothing: only `api.app.create_app` builds services."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILDERS = ('runtime.bootstrap', 'api.app')


def _loaded_after(imports: list[str]) -> list[str]:
    """Which of BUILDERS a fresh interpreter holds after importing `imports`."""
    code = (
        'import importlib, sys\n'
        f'for name in {imports!r}:\n'
        '    importlib.import_module(name)\n'
        f'print(",".join(m for m in {BUILDERS!r} if m in sys.modules))\n'
    )
    done = subprocess.run(
        [sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [name for name in done.stdout.strip().split(',') if name]


def test_importing_api_memory_builds_no_app_and_no_services():
    assert _loaded_after(['api.memory']) == []


def test_no_module_of_api_but_the_factory_imports_the_composition_root():
    modules = sorted(
        f'api.{path.stem}' for path in (ROOT / 'api').glob('*.py') if path.stem != 'app'
    )
    assert _loaded_after(modules) == []
