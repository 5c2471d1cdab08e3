"""docker/compose.yaml and the Dockerfile: healthchecks gate start order, workers skip the HTTP
check, restarts are on, the Qdrant server matches qdrant-client, the image does not run as root.
`docker compose config` (or Debian's docker-compose) validates the file when one is installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import yaml

DOCKER = Path(__file__).resolve().parents[2] / 'docker'
ROOT = DOCKER.parent


@pytest.fixture(scope='module')
def compose() -> dict[str, Any]:
    return yaml.safe_load((DOCKER / 'compose.yaml').read_text())


def test_every_service_restarts_and_waits_for_healthy_dependencies(compose) -> None:  # type: ignore[no-untyped-def]
    services = compose['services']
    assert set(services) == {'qdrant', 'redis', 'api', 'worker'}
    for name, service in services.items():
        assert service['restart'] == 'unless-stopped', name
        for dependency, rule in service.get('depends_on', {}).items():
            assert rule == {'condition': 'service_healthy'}, (name, dependency)
            assert not services[dependency]['healthcheck'].get('disable'), dependency
    assert set(services['api']['depends_on']) == {'qdrant', 'redis'}
    assert set(services['worker']['depends_on']) == {'qdrant', 'redis', 'api'}


def test_the_api_is_checked_on_healthz_and_workers_opt_out(compose) -> None:  # type: ignore[no-untyped-def]
    api, worker = compose['services']['api'], compose['services']['worker']
    assert any('/healthz' in part for part in api['healthcheck']['test'])
    assert worker['healthcheck'] == {'disable': True}
    assert 'ports' not in worker


def test_the_api_port_is_published_on_loopback_only(compose) -> None:  # type: ignore[no-untyped-def]
    # bearer tokens over plain HTTP: a TLS proxy on the host fronts it (docs/SERVER.md)
    for mapping in compose['services']['api']['ports']:
        assert str(mapping).startswith('127.0.0.1:'), mapping


def test_the_qdrant_server_is_within_one_minor_version_of_the_client(compose) -> None:  # type: ignore[no-untyped-def]
    image = compose['services']['qdrant']['image']
    match = re.fullmatch(r'qdrant/qdrant:v(\d+)\.(\d+)\.(\d+)', image)
    assert match, f'pin an exact server version, not {image}'
    client_major, client_minor = (int(p) for p in version('qdrant-client').split('.')[:2])
    # qdrant_client.common.version_check.is_compatible: same major, minors at most 1 apart
    assert int(match[1]) == client_major and abs(int(match[2]) - client_minor) <= 1


def test_the_image_runs_as_a_user_and_the_context_skips_local_state() -> None:
    dockerfile = (DOCKER / 'Dockerfile').read_text()
    users = re.findall(r'^USER\s+(\S+)', dockerfile, re.MULTILINE)
    assert users and users[-1] not in ('root', '0')
    ignored = (ROOT / '.dockerignore').read_text().split()
    assert {'.git', '.venv', 'mnemos-data', 'tests'} <= set(ignored)


def test_the_image_copies_every_package_the_wheel_holds() -> None:
    # the quick form of tests/integration/test_image_context.py, which builds and serves it
    setuptools = tomllib.loads((ROOT / 'pyproject.toml').read_text())['tool']['setuptools']
    dirs = setuptools.get('package-dir', {})
    wanted = {dirs.get(p, p.split('.')[0]) for p in setuptools['packages'] if '.' not in p}
    copied = {
        m[1].rstrip('/')
        for m in re.finditer(r'^COPY\s+(\S+)\s', (DOCKER / 'Dockerfile').read_text(), re.MULTILINE)
    }
    assert not wanted - copied, f'add COPY lines to docker/Dockerfile for {sorted(wanted - copied)}'


def _compose_command() -> list[str] | None:
    docker = shutil.which('docker')
    if (
        docker
        and subprocess.run([docker, 'compose', 'version'], capture_output=True).returncode == 0
    ):
        return [docker, 'compose']
    legacy = shutil.which('docker-compose')
    return [legacy] if legacy else None


def test_docker_compose_config_validates_the_file() -> None:
    command = _compose_command()
    if command is None:
        pytest.skip('neither `docker compose` nor docker-compose is installed')
    result = subprocess.run(
        [*command, '-f', str(DOCKER / 'compose.yaml'), 'config', '-q'],
        capture_output=True,
        text=True,
        env={**os.environ, 'KG_API_TOKEN': 'compose-test-token-0123456789abc'},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
