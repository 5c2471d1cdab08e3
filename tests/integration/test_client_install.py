"""`clients/python` installs on its own: its wheel holds `mnemos_client` and nothing of the server,
declares httpx and pydantic and the framework extras, and, installed into a fresh venv, talks to a
live service without importing any of the server. The fresh venv sees this venv's site-packages
for httpx and pydantic (a `.pth` path line runs no editable-install hook), so nothing is
downloaded but the build backend."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.live import TOKEN, live_service

pytestmark = pytest.mark.slow

CLIENT = Path(__file__).resolve().parents[2] / 'clients' / 'python'
PROBE = """
import sys
import mnemos_client
from mnemos_client import Mnemos

assert mnemos_client.__file__.startswith(sys.prefix), mnemos_client.__file__
with Mnemos() as mnemos:
    written = mnemos.remember('agent:install', 'Installed clients remember too')
    [hit] = mnemos.search('installed clients', 'agent:install', mode='bm25').hits
    print(written.status, hit.text)
    # the MCP server runs on the client alone (its `mcp` extra)
    from mnemos_client.mcp.server import call_tool
    found = call_tool(mnemos, 'memory_search', {'query': 'installed', 'scope': 'agent:install'})
    print(found.is_error, found.structured_content['hits'][0]['text'])
server = {'api', 'core', 'recall', 'flask', 'dramatiq', 'numpy', 'spacy'}
print(sorted(server & {name.split('.')[0] for name in sys.modules}))
"""


def test_the_client_distribution_installs_and_works_alone(tmp_path: Path) -> None:
    # built from a copy: setuptools leaves build/ and egg-info folders beside the sources
    source = tmp_path / 'source'
    shutil.copytree(
        CLIENT, source, ignore=shutil.ignore_patterns('build', '*.egg-info', '__pycache__')
    )
    built = subprocess.run(
        [sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps', '-w', str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = tmp_path.glob('mnemos_client-*.whl')
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(archive.read(n).decode() for n in names if n.endswith('/METADATA'))
    assert {n.split('/')[0] for n in names if not n.endswith(('METADATA', 'RECORD'))} <= {
        'mnemos_client',
        *(n.split('/')[0] for n in names if '.dist-info/' in n),
    }
    assert 'mnemos_client/py.typed' in names
    requires = [line for line in metadata.splitlines() if line.startswith('Requires-Dist:')]
    assert any('httpx' in r for r in requires) and any('pydantic' in r for r in requires)
    assert not any(r.split()[1].lower().startswith(('flask', 'numpy')) for r in requires)
    extras = {
        line.split(': ')[1] for line in metadata.splitlines() if line.startswith('Provides-Extra')
    }
    assert extras == {'langgraph', 'langchain', 'llamaindex', 'mcp'}
    assert 'mnemos_client/mcp/server.py' in names

    venv = tmp_path / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True)
    python = venv / 'bin' / 'python'
    installed = subprocess.run(
        [python, '-m', 'pip', 'install', '-q', '--no-deps', '--no-index', wheel],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    ask = 'import sysconfig; print(sysconfig.get_paths()["purelib"])'
    purelib = subprocess.run([python, '-c', ask], capture_output=True, text=True, check=True)
    (Path(purelib.stdout.strip()) / 'zz_dependencies.pth').write_text(
        sysconfig.get_paths()['purelib'] + '\n'
    )

    with live_service(tmp_path / 'data') as url:
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(('KG_', 'MNEMOS_', 'PYTHON'))
        }
        env |= {'MNEMOS_URL': url, 'MNEMOS_API_KEY': TOKEN}
        ran = subprocess.run(
            [python, '-c', PROBE], capture_output=True, text=True, cwd=tmp_path, env=env
        )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.splitlines() == [
        'created Installed clients remember too',
        'False Installed clients remember too',
        '[]',
    ]
