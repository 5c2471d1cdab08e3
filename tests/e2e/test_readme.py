"""The README's shell examples run as written, in order, in one shell, against a live service.

Every ```bash block after the first two (set up and serve; run the tests) is an example a reader
types into a second terminal while `mnemos serve` runs: they are joined in README order and run
with `bash -euo pipefail` from a folder holding `mnemos-data/api_token`, the one difference being
the service's address (a free port here, 8765 there). Blocks that start or install a service are
```sh and are not run. The Python client's example is run by tests/e2e/test_client.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live import TOKEN, live_service

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / 'README.md').read_text(encoding='utf-8')
BLOCK = re.compile(r'^```bash\n(.*?)^```$', re.DOTALL | re.MULTILINE)
ANCHOR = re.compile(r'\]\(#([a-z0-9-]+)\)')


def _slug(heading: str) -> str:
    # GitHub's anchors: lower case, punctuation dropped, spaces to hyphens
    return re.sub(r'[^\w\- ]', '', heading.strip().lower()).replace(' ', '-')


@pytest.fixture(scope='module')
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_service(tmp_path_factory.mktemp('readme-data')) as base:
        yield base


def test_the_readme_starts_with_the_two_commands():
    blocks = BLOCK.findall(README)
    assert blocks[0].startswith('# 1. set up and run the service')
    assert blocks[1].startswith('# 2. run the tests')
    assert README.index(blocks[1]) < README.index('## Contents')


def test_every_contents_link_names_a_heading():
    headings = {_slug(h) for h in re.findall(r'^#{2,3} (.+)$', README, re.MULTILINE)}
    assert set(ANCHOR.findall(README)) - headings == set()


def test_the_quick_start_installs_only_what_serving_needs():
    quick = README[README.index('## Quick start') : README.index('## Concepts')]
    [install] = re.findall(r'^```sh\n(.*?)^```$', quick, re.DOTALL | re.MULTILINE)
    assert 'pip install -q . ' in install and '[dev]' not in install
    assert install.rstrip().endswith('mnemos serve')


def test_no_test_count_is_written_down():
    assert re.search(r'\b\d+ tests\b', README) is None


def test_the_shell_examples_run_as_written(url: str, tmp_path: Path) -> None:
    examples = BLOCK.findall(README)[2:]
    assert len(examples) >= 6, 'the README lost its examples'
    script = '\n'.join(examples).replace('http://127.0.0.1:8765', url)
    (tmp_path / 'mnemos-data').mkdir()
    (tmp_path / 'mnemos-data' / 'api_token').write_text(TOKEN + '\n')
    env = {
        **os.environ,
        'PATH': f'{Path(sys.executable).parent}{os.pathsep}{os.environ["PATH"]}',
        'KG_PORT': url.rsplit(':', 1)[1],  # where the `mnemos` client commands look by default
    }
    env.pop('KG_API_TOKEN', None)
    done = subprocess.run(
        ['bash', '-euo', 'pipefail', '-c', script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f'{done.stdout[-3000:]}\n{done.stderr[-3000:]}'
    # an error answer is {"error": "<code>", ...}; a readiness check's "error": null is not one
    assert re.search(r'"error":\s*"', done.stdout) is None, done.stdout
    assert 'Traceback' not in done.stderr, done.stderr
    # the graph example answers with the fact its own data states
    assert '"object":"Acme"' in done.stdout.replace(' ', '')
