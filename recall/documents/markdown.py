"""Markdown chunker: split by headings, then paragraphs, then lines; each chunk carries its path.

Deterministic: the same document always gives the same chunks in the same order. Fenced code is
never split at blank lines inside the fence and `#` lines inside it are not headings.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

MAX_CHUNK_CHARS = 1000
PATH_SEPARATOR = ' > '
_HEADING = re.compile(r'^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$')
_FENCE = re.compile(r'^ {0,3}(`{3,}|~{3,})')
# where to cut an overlong line: after a sentence end, else at a space
_SENTENCE_END = re.compile(r'(?<=[.!?。！？；;])\s*')


class MarkdownChunk(BaseModel):
    """One chunk: `text` is the heading path line, a blank line, then the body."""

    model_config = ConfigDict(frozen=True)

    index: int
    text: str
    body: str
    heading_path: list[str] = Field(default_factory=list)
    start_line: int = Field(description='1-based line of the section the body came from')


class _Section(BaseModel):
    path: list[str]
    start_line: int
    lines: list[str]


def _sections(markdown: str) -> list[_Section]:
    sections = [_Section(path=[], start_line=1, lines=[])]
    stack: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(markdown.splitlines(), start=1):
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            sections[-1].lines.append(line)
            continue
        if opener:
            fence = opener.group(1)
            sections[-1].lines.append(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            title = (heading.group(2) or '').strip()
            # a heading closes every open heading at its level or deeper
            stack = [(lvl, t) for lvl, t in stack if lvl < level]
            if title:
                stack.append((level, title))
            sections.append(_Section(path=[t for _, t in stack], start_line=number, lines=[]))
            continue
        sections[-1].lines.append(line)
    return sections


def _blocks(lines: list[str]) -> list[str]:
    """Paragraphs: runs of non-blank lines; a fenced block is one paragraph, blank lines and all."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in lines:
        opener = _FENCE.match(line)
        if fence is not None:
            current.append(line)
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            current.append(line)
            continue
        if line.strip():
            current.append(line.rstrip())
        elif current:
            blocks.append('\n'.join(current))
            current = []
    if current:
        blocks.append('\n'.join(current))
    return [b.strip('\n') for b in blocks if b.strip()]


def _cut_line(line: str, limit: int) -> list[str]:
    """Pieces of one overlong line: at sentence ends, else spaces, else a hard cut."""
    pieces: list[str] = []
    rest = line
    while len(rest) > limit:
        window = rest[: limit + 1]
        cut = max(
            (m.end() for m in _SENTENCE_END.finditer(window) if 0 < m.end() <= limit), default=0
        )
        if cut < limit // 2:
            space = window.rfind(' ')
            cut = space + 1 if space >= limit // 2 else limit
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


def _split_block(block: str, limit: int) -> list[str]:
    if len(block) <= limit:
        return [block]
    pieces: list[str] = []
    current = ''
    for line in block.splitlines():
        for piece in _cut_line(line, limit) if len(line) > limit else [line]:
            candidate = f'{current}\n{piece}' if current else piece
            if len(candidate) > limit and current:
                pieces.append(current)
                current = piece
            else:
                current = candidate
    if current:
        pieces.append(current)
    return pieces


def chunk_markdown(markdown: str, max_chars: int = MAX_CHUNK_CHARS) -> list[MarkdownChunk]:
    """Chunks of at most `max_chars` (heading path included) in document order."""
    chunks: list[MarkdownChunk] = []
    for section in _sections(markdown.replace('\r\n', '\n').replace('\r', '\n')):
        context = PATH_SEPARATOR.join(section.path)
        # the body budget leaves room for the context line; a deep path still gets 200 chars
        budget = max(max_chars - (len(context) + 2 if context else 0), 200)
        bodies: list[str] = []
        current = ''
        for block in _blocks(section.lines):
            for piece in _split_block(block, budget):
                candidate = f'{current}\n\n{piece}' if current else piece
                if len(candidate) > budget and current:
                    bodies.append(current)
                    current = piece
                else:
                    current = candidate
        if current:
            bodies.append(current)
        for body in bodies:
            text = f'{context}\n\n{body}' if context else body
            chunks.append(
                MarkdownChunk(
                    index=len(chunks),
                    text=text,
                    body=body,
                    heading_path=list(section.path),
                    start_line=section.start_line,
                )
            )
    return chunks


def chunk_texts(markdown: str, max_chars: int = MAX_CHUNK_CHARS) -> list[str]:
    """The chunks' texts only: what the document index and hydrate store."""
    return [c.text for c in chunk_markdown(markdown, max_chars)]
