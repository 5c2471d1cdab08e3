"""The repository's Markdown documents name only files the repository holds."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MENTION = re.compile(r'(?<![\w/.-])([\w./-]+\.md)\b')


def _documents() -> list[Path]:
    return [
        p
        for p in ROOT.rglob('*.md')
        if not any(part.startswith('.') or part in ('node_modules', 'build') for part in p.parts)
    ]


def test_every_markdown_file_a_document_names_exists():
    missing = [
        f'{doc.relative_to(ROOT)}: {name}'
        for doc in _documents()
        for name in sorted(set(MENTION.findall(doc.read_text(encoding='utf-8'))))
        if not (doc.parent / name).exists() and not (ROOT / name).exists()
    ]
    assert missing == []
