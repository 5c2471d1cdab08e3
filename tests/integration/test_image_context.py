"""The image's build context builds and serves: a wheel made from exactly the files
`docker/Dockerfile` copies (minus what `.dockerignore` drops), installed into a fresh venv, runs
`mnemos serve`. No Docker engine is needed: the context is rebuilt in a temporary folder, and the
fresh venv sees this venv's site-packages for the dependencies (`pip install .` in the image
fetches them), so only the wheel is new."""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tests.integration.test_service_process import free_port, stopped, wait_healthy

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / 'docker' / 'Dockerfile'
TOKEN = 'image-context-token-0123456789ab'


def dockerfile_copies(text: str) -> list[tuple[list[str], str]]:
    """(sources, destination) of every `COPY` from the build context (not `--from` a stage)."""
    copies = []
    for line in text.replace('\\\n', ' ').splitlines():
        words = line.split()
        if not words or words[0].upper() != 'COPY':
            continue
        args = [w for w in words[1:] if not w.startswith('--')]
        assert not any(w.startswith('--from') for w in words), 'a multi-stage copy: extend this'
        copies.append((args[:-1], args[-1]))
    return copies


def ignore_patterns() -> list[str]:
    lines = (ROOT / '.dockerignore').read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith('#')]


def ignored(relative: Path, patterns: list[str]) -> bool:
    """`.dockerignore` matching, for the patterns this repository uses (`name`, `**/name`, globs
    on a path prefix)."""
    parts = relative.parts
    for pattern in patterns:
        anywhere = pattern.startswith('**/')
        bare = pattern.removeprefix('**/')
        prefixes = ['/'.join(parts[: i + 1]) for i in range(len(parts))]
        if any(fnmatch.fnmatch(p, bare) for p in prefixes):
            return True
        if anywhere and any(fnmatch.fnmatch(part, bare) for part in parts):
            return True
    return False


def build_context(target: Path) -> None:
    """Copy what the Dockerfile's COPY lines take from the repository into `target`."""
    patterns = ignore_patterns()
    for sources, destination in dockerfile_copies(DOCKERFILE.read_text()):
        into_dir = destination.endswith('/') or len(sources) > 1
        for source in sources:
            origin = ROOT / source
            assert origin.exists(), f'COPY {source}: not in the build context'
            place = target / destination / origin.name if into_dir else target / destination
            files = [origin] if origin.is_file() else sorted(origin.rglob('*'))
            for file in files:
                relative = file.relative_to(ROOT)
                if not file.is_file() or ignored(relative, patterns):
                    continue
                copy = place if file == origin else place / file.relative_to(origin)
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(file, copy)


def packaged_files() -> set[str]:
    """Every module and package-data file `pyproject.toml` says the wheel holds."""
    config = tomllib.loads((ROOT / 'pyproject.toml').read_text())['tool']['setuptools']
    package_dirs = config.get('package-dir', {})
    wanted: set[str] = set()
    for package in config['packages']:
        folder = ROOT / package_dirs.get(package, package.replace('.', '/'))
        wanted |= {f'{package.replace(".", "/")}/{p.name}' for p in folder.glob('*.py')}
    for package, globs in config.get('package-data', {}).items():
        folder = ROOT / package_dirs.get(package, package.replace('.', '/'))
        for pattern in globs:
            wanted |= {
                f'{package.replace(".", "/")}/{p.relative_to(folder).as_posix()}'
                for p in folder.glob(pattern)
            }
    return wanted


def test_a_wheel_of_the_image_context_installs_and_serves(tmp_path: Path) -> None:
    context = tmp_path / 'context'
    build_context(context)
    wheels = tmp_path / 'wheels'
    built = subprocess.run(
        [sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps', '-w', str(wheels), str(context)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = wheels.glob('mnemos-*.whl')
    missing = packaged_files() - set(zipfile.ZipFile(wheel).namelist())
    assert not missing, f'the image would lack {sorted(missing)[:10]}'

    venv = tmp_path / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True)
    installed = subprocess.run(
        [venv / 'bin' / 'python', '-m', 'pip', 'install', '-q', '--no-deps', '--no-index', wheel],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    # the dependencies come from this venv, appended after the fresh venv's own site-packages
    # (a path line in a .pth file does not run that folder's own .pth files, so this
    # checkout's editable install stays out of sight)
    ask = 'import sysconfig; print(sysconfig.get_paths()["purelib"])'
    purelib = subprocess.run(
        [venv / 'bin' / 'python', '-c', ask],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / 'zz_dependencies.pth').write_text(sysconfig.get_paths()['purelib'] + '\n')

    env = {k: v for k, v in os.environ.items() if not k.startswith(('KG_', 'PYTHON'))}
    where = subprocess.run(
        [venv / 'bin' / 'python', '-c', 'import api, runtime, vectors; print(api.__file__)'],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert where.returncode == 0, where.stderr[-3000:]
    assert where.stdout.strip().startswith(str(venv)), where.stdout

    port = free_port()
    env |= {
        'KG_DATA_DIR': str(tmp_path / 'data'),
        'KG_API_TOKEN': TOKEN,
        'KG_PORT': str(port),
        'KG_EMBEDDER': 'hash',
        'KG_EXTRACT_WORKERS': '0',
    }
    log = tmp_path / 'serve.log'
    with log.open('wb') as out:
        proc = subprocess.Popen(
            [venv / 'bin' / 'mnemos', 'serve'], env=env, stdout=out, stderr=out, cwd=tmp_path
        )
        try:
            wait_healthy(proc, port, log)
            url = f'http://127.0.0.1:{port}'
            headers = {'Authorization': f'Bearer {TOKEN}', 'Content-Type': 'application/json'}
            body = json.dumps({'scope': 'agent:image', 'text': 'Alice drinks green tea'}).encode()
            request = urllib.request.Request(f'{url}/v1/memories', body, headers)
            with urllib.request.urlopen(request, timeout=60) as response:
                assert json.loads(response.read())['status'] == 'created'
            # the inspector's files are package data: the wheel must carry them
            with urllib.request.urlopen(f'{url}/ui', timeout=60) as response:
                assert response.status == 200
        finally:
            stopped(proc)
