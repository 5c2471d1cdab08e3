"""Markdown chunker: headings, then paragraphs, then lines; heading path in every chunk."""

from __future__ import annotations

from recall.documents.markdown import MAX_CHUNK_CHARS, chunk_markdown

DOC = """Intro before any heading.

# Guide

Welcome.

## Install

Run the installer.

Then restart.

### Linux

```sh
# not a heading

make install
```

## Use

Open the app.

# Appendix
"""


def test_chunks_follow_headings_and_carry_the_heading_path():
    chunks = chunk_markdown(DOC)
    assert [c.heading_path for c in chunks] == [
        [],
        ['Guide'],
        ['Guide', 'Install'],
        ['Guide', 'Install', 'Linux'],
        ['Guide', 'Use'],
    ]
    assert chunks[2].text == 'Guide > Install\n\nRun the installer.\n\nThen restart.'
    assert chunks[2].body == 'Run the installer.\n\nThen restart.'
    assert chunks[0].text == 'Intro before any heading.'


def test_indexes_are_consecutive_and_start_lines_point_at_the_section():
    chunks = chunk_markdown(DOC)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    lines = DOC.splitlines()
    assert lines[chunks[2].start_line - 1] == '## Install'


def test_hash_lines_inside_code_fences_are_not_headings_and_fences_stay_whole():
    linux = chunk_markdown(DOC)[3]
    assert '# not a heading\n\nmake install' in linux.body
    assert linux.body.startswith('```sh') and linux.body.endswith('```')


def test_empty_sections_produce_no_chunks():
    assert all(c.heading_path != ['Appendix'] for c in chunk_markdown(DOC))
    assert chunk_markdown('') == []
    assert chunk_markdown('# Only\n\n## Headings\n') == []


def test_long_sections_split_at_paragraphs_under_the_limit():
    paragraphs = [f'Paragraph {i}. ' + 'lorem ipsum ' * 30 for i in range(10)]
    chunks = chunk_markdown('# Long\n\n' + '\n\n'.join(paragraphs))
    assert len(chunks) > 1
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    assert all(c.text.startswith('Long\n\n') for c in chunks)
    # no paragraph is cut in the middle when it fits on its own
    assert all(p.strip() in '\n\n'.join(c.body for c in chunks) for p in paragraphs)


def test_an_overlong_paragraph_splits_at_sentences_and_never_exceeds_the_limit():
    sentence = 'This sentence is about forty characters. '
    chunks = chunk_markdown('## Big\n\n' + sentence * 100, max_chars=300)
    assert len(chunks) > 1
    assert all(len(c.text) <= 300 for c in chunks)
    assert all(c.body.endswith('characters.') for c in chunks)


def test_a_line_without_spaces_is_hard_cut():
    chunks = chunk_markdown('x' * 2500)
    assert [len(c.text) for c in chunks] == [1000, 1000, 500]


def test_the_same_document_always_gives_the_same_chunks():
    assert chunk_markdown(DOC) == chunk_markdown(DOC)
    assert chunk_markdown(DOC.replace('\n', '\r\n')) == chunk_markdown(DOC)


def test_closing_hashes_and_nested_levels_reset_the_path():
    chunks = chunk_markdown('# A #\n\na\n\n### C\n\nc\n\n## B\n\nb\n')
    assert [c.heading_path for c in chunks] == [['A'], ['A', 'C'], ['A', 'B']]
