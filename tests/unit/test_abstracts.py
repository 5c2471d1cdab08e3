"""L0 abstracts and L1 overviews of memories, extractive (seeds 000, 002)."""

from __future__ import annotations

from recall.read.abstracts import ABSTRACT_CHARS, abstract, overview


def test_the_abstract_is_the_first_sentence_in_one_line():
    assert abstract('我叫东升。我在杭州工作。我喜欢狗。') == '我叫东升。'
    assert abstract('I live in Oslo.\nI work at Equinor.') == 'I live in Oslo.'


def test_a_long_first_sentence_is_clipped_at_a_word():
    line = abstract('word ' * 100)
    assert len(line) <= ABSTRACT_CHARS and line.endswith('…') and '\n' not in line


def test_the_overview_lists_up_to_three_key_points():
    assert overview('我叫东升。我在杭州工作。我喜欢狗。我有一只猫。').splitlines() == [
        '- 我叫东升。',
        '- 我在杭州工作。',
        '- 我喜欢狗。',
    ]
    assert overview('one fact without an end mark') == '- one fact without an end mark'
