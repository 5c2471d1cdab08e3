"""Supersession is about one slot of one subject, over HTTP, in English and Chinese.

Compatible facts (likes, hobbies, pets) accumulate; a new value of a single-valued slot or an
explicit correction replaces the old one, with a recorded reason naming the slot and both
values; a turn with several facts loses only the fact that changed.
"""

from __future__ import annotations

import pytest

from tests.e2e.http_calls import capture, one_id, read, said, search, write

COMPATIBLE = [
    ('I like hiking', 'I like swimming', 'What outdoor activities do I like?'),
    ('I like dogs', "I don't like cats", 'Which animals do I like?'),
    ('我喜欢爬山', '我喜欢游泳', '我喜欢什么运动？'),
    ('我喜欢喝咖啡', '我不喜欢喝茶', '我喜欢喝什么？'),
]


@pytest.mark.parametrize('via', ['capture', 'preference'])
@pytest.mark.parametrize(('first', 'second', 'question'), COMPATIBLE)
def test_compatible_facts_both_stay_current(client, auth, scope, via, first, second, question):  # type: ignore[no-untyped-def]
    if via == 'capture':
        old = one_id(capture(client, auth, scope, first, user_id='ann'))
        result = capture(client, auth, scope, second, user_id='ann')
        assert result['stored'][0]['reason'] is None, result
        new = one_id(result)
    else:
        old = write(client, auth, scope, first, kind='preference', user_id='ann')['id']
        result = write(client, auth, scope, second, kind='preference', user_id='ann')
        assert (result['superseded'], result['supersessions']) == ([], []), result
        new = result['id']
    assert read(client, auth, old)['superseded_by'] is None
    found = {h['id'] for h in search(client, auth, scope, question, user_id='ann')}
    assert {old, new} <= found


PROSE = [
    'I no longer like bullet points, I prefer prose',
    'I prefer prose now, no more bullet points',
    'I no longer want bullet points in answers. Please write prose paragraphs.',
    'I now prefer prose over bullet points',
    'From now on, use prose instead of bullet points',
]


@pytest.mark.parametrize('wording', PROSE)
def test_every_wording_of_a_correction_supersedes_the_old_preference(client, auth, scope, wording):  # type: ignore[no-untyped-def]
    old = write(client, auth, scope, 'I prefer bullet points in your answers', kind='preference')
    new = write(client, auth, scope, wording, kind='preference')
    assert new['superseded'] == [old['id']], new
    stored = read(client, auth, old['id'])
    assert stored['superseded_by'] == new['id']
    reason = stored['supersession']
    assert (reason['slot'], reason['old_value'], reason['by']) == (
        'answer_format',
        'bullet points',
        new['id'],
    )
    assert reason['new_value'] in ('prose', 'not bullet points')
    assert [(r['slot'], r['old_value']) for r in new['supersessions']] == [
        ('answer_format', 'bullet points')
    ]
    hits = search(client, auth, scope, 'How should answers be formatted?')
    assert old['id'] not in {h['id'] for h in hits}
    audit = search(client, auth, scope, 'bullet points', include_superseded=True)
    [old_hit] = [h for h in audit if h['id'] == old['id']]
    assert (old_hit['superseded_by'], old_hit['supersession']['slot']) == (
        new['id'],
        'answer_format',
    )


def test_a_permission_supersedes_the_lesson_it_reverses(client, auth, scope):  # type: ignore[no-untyped-def]
    lesson = capture(client, auth, scope, '回答不要用表格')
    assert lesson['stored'][0]['kind'] == 'lesson'
    result = capture(client, auth, scope, '以后回答可以用表格了')
    [new] = result['stored']
    assert new['reason'] == 'supersedes older memories', result
    stored = read(client, auth, one_id(lesson))
    assert stored['superseded_by'] == new['id']
    reason = stored['supersession']
    assert (reason['slot'], reason['old_value'], reason['new_value'], reason['rule']) == (
        'answer_format',
        'not tables',
        'tables',
        'negation',
    )


@pytest.mark.parametrize(
    ('old', 'new', 'slot', 'values'),
    [
        ('I live in Berlin', 'I moved to Paris', 'lives_in', ('berlin', 'paris')),
        ('我在阿里巴巴工作', '我跳槽到字节跳动了', 'works_at', ('阿里巴巴', '字节跳动')),
        ("I don't like coffee", 'I like coffee again', 'likes', ('not coffee', 'coffee')),
    ],
)
def test_a_supersession_names_the_slot_and_both_values_in_the_memory_and_the_receipt(  # type: ignore[no-untyped-def]
    client, auth, scope, old, new, slot, values
):
    first = write(client, auth, scope, old, kind='fact', user_id='ann')
    second = write(client, auth, scope, new, kind='fact', user_id='ann')
    assert second['superseded'] == [first['id']]
    [record] = second['supersessions']
    assert (record['slot'], record['subject'], record['old_value'], record['new_value']) == (
        slot,
        'ann',
        *values,
    )
    assert read(client, auth, first['id'])['supersession'] == record


def test_another_subjects_slot_is_left_alone(client, auth, scope):  # type: ignore[no-untyped-def]
    dana = write(client, auth, scope, 'Dana works at Acme Corp', kind='fact')
    ann = write(client, auth, scope, 'Ann works at Globex', kind='fact')
    assert ann['superseded'] == [] and read(client, auth, dana['id'])['superseded_by'] is None
    later = write(client, auth, scope, 'Dana: I joined Initech', kind='fact')
    assert later['superseded'] == [dana['id']]


@pytest.mark.parametrize(
    ('turn', 'move', 'question', 'job', 'home'),
    [
        (
            'I live in Leeds and work at Arup as an engineer',
            'I moved to York',
            'Where do I work?',
            'Arup',
            ('leeds', 'york'),
        ),
        (
            '我住在深圳南山区，在华为做产品经理',
            '我搬到广州了',
            '我在哪里工作？',
            '华为',
            ('深圳南山区', '广州'),
        ),
    ],
)
@pytest.mark.parametrize('via', ['capture', 'fact'])
def test_a_move_supersedes_the_home_and_never_the_job_of_the_same_turn(  # type: ignore[no-untyped-def]
    client, auth, scope, via, turn, move, question, job, home
):
    if via == 'capture':
        first = one_id(capture(client, auth, scope, turn, user_id='lee'))
        result = capture(client, auth, scope, move, user_id='lee')
        [moved] = result['stored']
        assert moved['reason'] == 'outdates facts of older memories', result
    else:
        first = write(client, auth, scope, turn, kind='fact', user_id='lee')['id']
        moved = write(client, auth, scope, move, kind='fact', user_id='lee')
        assert moved['superseded'] == []
    stored = read(client, auth, first)
    assert stored['superseded_by'] is None
    [record] = stored['stale']
    assert (record['slot'], record['old_value'], record['new_value'], record['by']) == (
        'lives_in',
        *home,
        moved['id'],
    )
    hits = search(client, auth, scope, question, user_id='lee')
    assert any(job in h['text'] for h in hits)
    [hit] = [h for h in hits if h['id'] == first]
    assert [r['slot'] for r in hit['stale']] == ['lives_in']


PLAIN_CORRECTIONS = [
    ('Always answer me in English.', 'Answer in Spanish instead of English.', 'answer_language'),
    ('I prefer miles for measurements.', 'Use kilometres instead of miles.', 'unit:distance'),
    (
        'I prefer short answers.',
        'From now on give detailed answers instead of short ones.',
        'answer_length',
    ),
    ('回答里不要用表格。', '不再禁止表格，以后可以用。', 'answer_format'),
    ('你可以叫我小王。', '以后叫我王总。', 'name'),
    ('I use Vim as my editor.', 'I moved from Vim to Emacs for editing code.', 'editor'),
    # a new name in other words
    ('Call me Liz.', "Don't call me Liz, it's Beth.", 'name'),
    ('Call me Liz.', 'Please address me as Beth.', 'name'),
    ('Call me Liz.', 'I go by Beth now.', 'name'),
]


@pytest.mark.parametrize(('old', 'new', 'slot'), PLAIN_CORRECTIONS)
def test_a_plain_write_of_a_correction_supersedes_what_it_corrects(
    client, auth, scope, old, new, slot
):  # type: ignore[no-untyped-def]
    first = write(client, auth, scope, old, user_id='kim')
    second = write(client, auth, scope, new, user_id='kim')
    assert second['superseded'] == [first['id']], second
    assert read(client, auth, first['id'])['supersession']['slot'] == slot


@pytest.mark.parametrize(
    ('turn', 'change', 'slot'),
    [
        ('我是滴滴的产品经理，住在南京。', '我跳槽到华为了。', 'works_at'),
        ('我在小米上班，家住厦门。', '我们全家搬去成都了。', 'lives_in'),
    ],
)
def test_a_chinese_turn_with_two_facts_loses_only_the_changed_one(
    client, auth, scope, turn, change, slot
):  # type: ignore[no-untyped-def]
    first = write(client, auth, scope, turn, user_id='kim')
    write(client, auth, scope, change, user_id='kim')
    stored = read(client, auth, first['id'])
    assert stored['superseded_by'] is None
    assert [r['slot'] for r in stored['stale']] == [slot]


CORRECTIONS = [
    ('Answer in French.', 'Switch to English for your replies.', 'answer_language'),
    ('Reply in German.', "Don't reply in German anymore, use English.", 'answer_language'),
    (
        'Write your answers in Spanish.',
        'From now on, answer in English instead of Spanish.',
        'answer_language',
    ),
    ('I live in Paris.', "I don't live in Paris anymore, I'm in Lyon now.", 'lives_in'),
    ('I work at Acme.', "I no longer work at Acme; I'm at Globex now.", 'works_at'),
    ('I work at Initech.', 'I quit Initech.', 'works_at'),
    ('Use miles.', 'Switch to kilometres please.', 'unit:distance'),
    ('I drink coffee every morning.', 'I no longer drink coffee.', 'habit'),
    ('I prefer prose.', 'Bullet points are fine again, use them from now on.', 'answer_format'),
    ("I don't want tables in answers.", 'Tables are okay now.', 'answer_format'),
    ('我用Vim写代码。', '我现在改用Emacs了。', 'editor'),
    ('回答用中文。', '不再用中文回答，改成英文。', 'answer_language'),
    ('请用中文回复。', '以后回复都用英文，不用中文了。', 'answer_language'),
    ('温度用摄氏度。', '温度改成华氏度。', 'unit:temperature'),
    ('我住在成都。', '我不再住在成都了。', 'lives_in'),
    ('我在腾讯工作。', '我已经不在腾讯工作了，现在在阿里巴巴上班。', 'works_at'),
    ('我喜欢表格。', '以后不需要表格了。', 'answer_format'),
    ('Use bullet points in your answers.', 'Prose, not bullet points, please.', 'answer_format'),
    (
        'Use bullet points in your answers.',
        'Could you write in paragraphs rather than bullet points?',
        'answer_format',
    ),
    ('I prefer miles.', 'No more miles, kilometres please.', 'unit:distance'),
    (
        'Keep your answers short.',
        'No need to keep answers short anymore, go into detail.',
        'answer_length',
    ),
    ('I prefer Celsius.', "I'd like Fahrenheit instead.", 'unit:temperature'),
    ('回答用英文。', '换回中文吧。', 'answer_language'),
    ('回答请分点。', '回答写成一段话。', 'answer_format'),
    ('回答用表格。', '表格看着不方便，用文字吧。', 'answer_format'),
    ('回答用中文。', '请说英文。', 'answer_language'),
    ('回答用英文。', '不要中英混杂，全部用中文。', 'answer_language'),
    ('回答简短。', '说得详细点。', 'answer_length'),
    ('回答详细一点。', '不用那么详细。', 'answer_length'),
    ('我在腾讯工作。', '我已经离开腾讯了。', 'works_at'),
    ('我住在北京。', '我现在不在北京住了。', 'lives_in'),
    (
        'I like bullet points.',
        "Actually, I've changed my mind: paragraphs are better.",
        'answer_format',
    ),
    ('Use bullet points.', 'Bullet points are annoying, please stop.', 'answer_format'),
    ('Reply in English.', "I'd rather you spoke French to me.", 'answer_language'),
    ('Keep answers brief.', 'Please be more thorough.', 'answer_length'),
    ('I use Emacs.', 'I ditched Emacs for Neovim.', 'editor'),
    ('I work at Google.', "I'm no longer at Google.", 'works_at'),
    ('I work at Google.', 'I left Google last month.', 'works_at'),
    ('I like coffee.', "I've given up coffee.", 'likes'),
    ('Answer in Spanish.', 'English, please, not Spanish.', 'answer_language'),
]


@pytest.mark.parametrize('via', ['capture', 'write'])
@pytest.mark.parametrize(('old', 'new', 'slot'), CORRECTIONS)
def test_a_correction_in_other_words_hides_what_it_corrects(
    client, auth, scope, via, old, new, slot
):  # type: ignore[no-untyped-def]
    [first] = said(client, auth, scope, old, via, user_id='ann')
    later = {s['id'] for s in said(client, auth, scope, new, via, user_id='ann')}
    stored = read(client, auth, first['id'])
    assert stored['superseded_by'] in later, stored
    assert stored['supersession']['slot'] == slot, stored


# what someone else does, or another slot of the speaker
KEPT = [
    ('Answer in English.', 'I switched to French classes.'),
    ('Answer in English.', 'Do you speak French?'),
    ('I work at Google.', "I'm not at Google today, working from home."),
    ('回答用中文。', '我妈妈说英文就好。'),
    ('Reply in English.', 'My French teacher answers in French.'),
    ('我住在北京。', '我妈妈住在上海。'),
    ('My wife is Anna.', 'My wife is a doctor.'),
    ('I prefer short answers.', 'I no longer want French replies.'),
    ('回答用中文。', '我在学日语。'),
    ('I work at Google.', 'I left Google early today.'),
    ('I like coffee.', 'I gave up on the crossword.'),
]


# a subject shared by two statements ("公司" where it is, and what it grants) is not a slot: only
# a second value of the same single-valued slot replaces the first (written with no user)
UNRELATED = [
    ('公司在望京 SOHO 七楼。', '公司规定每年有 15 天年假。'),
    ('公司规定每年有 15 天年假。', '公司的 VPN 账号每 90 天要改一次密码。'),
    ('我以前在华为做过三年嵌入式开发。', '公司规定每年有 15 天年假。'),
    ('我住在杭州市西湖区文三路。', '我老家在湖南长沙。'),
    ('我住在杭州市西湖区文三路。', '下周三我飞北京出差，住在国贸附近。'),
    ('李娜在杭州市儿童医院做儿科医生。', '李娜的科室主任是张建国医生。'),
    ('我是一名医生。', '我的同事是程序员。'),
    ('我以前在华为做过三年嵌入式开发。', '我太太叫林晓雯，是一名儿科医生。'),
    ('I am a teacher.', 'My wife is Anna and works as a nurse.'),
    ('My company is Arup.', 'My company is on the 7th floor.'),
    ('The office is on the 7th floor.', 'The office policy gives 15 days of leave.'),
    ('My wife is Anna.', 'My wife is on a trip to Rome.'),
]


NEXT = {'name': 'Call me Bobby.', 'editor': 'My editor is Helix.'}
CORRECTED = [
    ('write', 'Call me Bob.', 'I prefer Robert now instead of Bob.', 'name', ('bob', 'robert')),
    ('write', 'I use Vim.', 'I use Emacs instead of Vim.', 'editor', ('vim', 'emacs')),
    ('capture', 'I use Vim.', 'I use Emacs instead of Vim.', 'editor', ('vim', 'emacs')),
    ('write', 'My editor is Vim.', 'I prefer Emacs rather than Vim.', 'editor', ('vim', 'emacs')),
    ('capture', 'My editor is Vim.', 'I prefer Emacs rather than Vim.', 'editor', ('vim', 'emacs')),
    ('write', '叫我小王。', '把小王改成老王。', 'name', ('小王', '老王')),
    ('write', '我的编辑器是Vim。', '编辑器不是Vim而是Emacs。', 'editor', ('vim', 'emacs')),
]


@pytest.mark.parametrize(('via', 'old', 'new', 'slot', 'values'), CORRECTED)
def test_a_value_named_as_over_corrects_the_slot_that_holds_it(
    client, auth, scope, via, old, new, slot, values
):  # type: ignore[no-untyped-def]
    # "<new> instead of <old>": the slot is the one whose current value is <old>, whatever
    # verb the correction uses
    [first] = said(client, auth, scope, old, via, user_id='ann')
    [second] = said(client, auth, scope, new, via, user_id='ann')
    stored = read(client, auth, first['id'])
    assert stored['superseded_by'] == second['id'], stored
    record = stored['supersession']
    assert (record['slot'], record['old_value'], record['new_value']) == (slot, *values)
    # the correction now holds the slot: the slot's next value replaces it in turn
    third = write(client, auth, scope, NEXT[slot], user_id='ann')
    assert read(client, auth, second['id'])['superseded_by'] == third['id']


# "<new> instead of <old>" where no slot holds <old>
CORRECTED_KEPT = [
    ("I'd like tea.", "I'd like tea instead of coffee today."),
    ('Call me Bob.', 'I prefer Robert now instead of Rob.'),
    ('Call me Bob.', 'I prefer trains rather than buses.'),
    ('I live in Paris.', 'I prefer Lyon rather than Marseille.'),
    ('叫我小王。', '把老李改成老王。'),
    ('我住在北京。', '这不是问题而是机会。'),
]


NOTHING_CORRECTED = [
    *[(old, new, 'ann') for old, new in KEPT],
    *[(old, new, None) for old, new in UNRELATED],
    *[(old, new, 'ann') for old, new in CORRECTED_KEPT],
]


@pytest.mark.parametrize(('old', 'new', 'user'), NOTHING_CORRECTED)
def test_a_statement_that_changes_no_held_slot_corrects_nothing(
    client, auth, scope, old, new, user
):  # type: ignore[no-untyped-def]
    fields = {} if user is None else {'user_id': user}
    first = write(client, auth, scope, old, **fields)
    second = write(client, auth, scope, new, **fields)
    assert (second['superseded'], second['supersessions']) == ([], []), second
    stored = read(client, auth, first['id'])
    assert (stored['superseded_by'], stored['stale']) == (None, []), stored
