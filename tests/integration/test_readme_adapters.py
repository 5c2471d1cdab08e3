"""The README's LangGraph, LangChain and LlamaIndex examples run as written against `mnemos serve`
(default settings, the token file it writes); only the port differs, a free one instead of 8765."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_service_process import free_port, stopped, wait_healthy

pytestmark = pytest.mark.slow

README = Path(__file__).resolve().parents[2] / 'README.md'


def examples() -> list[str]:
    text = README.read_text(encoding='utf-8')
    start = text.index('### LangGraph, LangChain and LlamaIndex')
    section = text[start : text.index('\n## ', start)]
    return re.findall(r'```python\n(.*?)```', section, re.DOTALL)


def test_the_readme_has_an_example_for_each_framework() -> None:
    blocks = examples()
    for module in (
        'mnemos_client.langgraph',
        'mnemos_client.langchain',
        'mnemos_client.llamaindex',
    ):
        assert any(f'from {module} import' in block for block in blocks), module
    assert all(len(block.strip().splitlines()) <= 12 for block in blocks)


def test_the_readme_adapter_examples_run_against_mnemos_serve(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(('KG_', 'MNEMOS_'))}
    log = tmp_path / 'serve.log'
    with log.open('wb') as out:
        proc = subprocess.Popen(
            [sys.executable, '-m', 'api.cli', 'serve', '--port', str(port)],
            env=env,
            cwd=tmp_path,
            stdout=out,
            stderr=out,
        )
        try:
            wait_healthy(proc, port, log)
            outputs = []
            for block in examples():
                code = block.replace('http://127.0.0.1:8765', f'http://127.0.0.1:{port}')
                ran = subprocess.run(
                    [sys.executable, '-c', code],
                    cwd=tmp_path,
                    env=env,
                    capture_output=True,
                    text=True,
                )
                assert ran.returncode == 0, ran.stderr[-3000:]
                outputs.append(ran.stdout.splitlines())
        finally:
            stopped(proc)
    langgraph, langchain, llamaindex = outputs
    assert langgraph == [
        "{'text': 'Alice prefers green tea'}",
        'city Alice moved to Lisbon in 2024',
    ]
    assert langchain[0].endswith(' Bob is allergic to peanuts')
    assert llamaindex[0].endswith(' Carol speaks Japanese')
