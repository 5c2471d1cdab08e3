"""Episodes in Chinese and without recall blocks (issue 13): sentences, summaries and topics of
Chinese sessions, and a recall block sent back in a transcript never reaching an episode."""

from __future__ import annotations

from consolidation import text
from consolidation.episodic import without_recall
from consolidation.models import SessionIn

RECALL = (
    '## Relevant Memory (current turn only)\n'
    '- [id=1, kind=preference, tier=core, score=0.82] 用户偏好直接简洁的回答。\n'
    '- [id=2, kind=fact] User lives in Berlin.'
)
CHINESE = [
    '我叫东升，我在杭州的阿里巴巴工作。',
    '我们决定下个版本用 PostgreSQL。',
    '周五要和王强一起去上海见客户。',
    '好的。',
    '上海的客户是华为。',
]


def test_chinese_text_splits_into_sentences_and_has_content_words():
    assert text.split_sentences('我叫东升。我在杭州工作！你呢？') == [
        '我叫东升。',
        '我在杭州工作！',
        '你呢？',
    ]
    assert '杭州' in text.words('我在杭州工作')


def test_a_chinese_session_gets_a_chinese_summary_and_its_names_as_topics():
    summary = text.summarize(CHINESE)
    assert 'PostgreSQL' in summary and '好的' not in summary
    assert ' ' not in summary.replace('用 PostgreSQL', '')  # no spaces between sentences
    topics = text.key_topics([summary, *CHINESE])
    assert {'上海', '王强', '华为', '阿里巴巴'} <= set(topics)
    assert text.abstract(summary).endswith('。')


def test_english_topics_and_summaries_are_unchanged():
    summary = text.summarize(['I like tea. We decided to ship on Friday. The weather was nice.'])
    assert summary == 'I like tea. We decided to ship on Friday. The weather was nice.'
    assert text.key_topics(['Alice Johnson from Acme Corp met Bob.'])[:1] == ['Alice Johnson']


def _session(*contents: str) -> SessionIn:
    return SessionIn.model_validate(
        {
            'scope': 'agent:s',
            'messages': [
                {'role': 'user', 'content': c, 'ts': f'2026-03-02T09:0{i}:00Z'}
                for i, c in enumerate(contents)
            ],
            'summary': f'{RECALL}\n\nThe user planned the Friday release.',
        }
    )


def test_recall_blocks_are_cut_from_session_messages_and_summary():
    session = without_recall(_session(f'{RECALL}\n\nWe ship on Friday.', RECALL, '好的'))
    assert session is not None
    assert [m.content for m in session.messages] == ['We ship on Friday.', '好的']
    assert session.summary == 'The user planned the Friday release.'
    topics = text.key_topics([session.summary or '', *(m.content for m in session.messages)])
    assert 'Relevant Memory' not in topics and 'Berlin' not in topics


def test_a_session_of_nothing_but_recall_makes_no_episode():
    assert without_recall(_session(RECALL)) is None
