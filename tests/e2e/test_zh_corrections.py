"""Chinese corrections in more words, over HTTP: a discourse lead (其实, 更正一下, 不对), a change
of employer told with 换到/去, a way of address (称呼, 改叫), a value changed into another (把X
换成Y, 中文改为英文), a correction over two clauses (应该是X，不是Y), and a permission that
reverses a rule (以后…可以). Each hides what it corrects, with the slot recorded; a statement of
another subject or a routine errand corrects nothing.
"""

from __future__ import annotations

import pytest

from tests.e2e.http_calls import capture, read, said, write

CORRECTIONS = [
    ('我在腾讯工作。', '其实我在阿里巴巴工作。', 'works_at'),
    ('我在腾讯工作。', '不对，其实我在阿里巴巴上班。', 'works_at'),
    ('我在腾讯工作。', '我换到阿里巴巴工作了。', 'works_at'),
    ('我在腾讯工作。', '我现在去阿里巴巴上班了。', 'works_at'),
    ('叫我小王。', '称呼改为王总。', 'name'),
    ('叫我小王。', '我现在的称呼是王总。', 'name'),
    ('你可以叫我小王。', '小王这个称呼不用了，改叫王总。', 'name'),
    ('我喜欢你用列表回答。', '把列表换成段落吧。', 'answer_format'),
    ('回答请用要点列表。', '要点列表换成段落。', 'answer_format'),
    ('我喜欢你用列表回答。', '应该是段落，不是列表。', 'answer_format'),
    ('回答里不要用表格。', '我不再反对表格了。', 'answer_format'),
    ('请用中文回答我。', '我现在想让你说英文。', 'answer_language'),
    ('请用中文回答我。', '应该是英文，不是中文。', 'answer_language'),
    ('回答简短一点。', '把简短改成详细。', 'answer_length'),
    ('回答不要太长。', '以后回答可以长一点。', 'answer_length'),
    ('我在腾讯工作。', '我的公司现在是阿里巴巴。', 'works_at'),
    ('我是一名老师。', '我的职位改为律师。', 'title'),
    ('我住在北京。', '我住的地方应该是上海，不是北京。', 'lives_in'),
    ('回答里不要用emoji。', '以后回答可以用emoji了。', 'rule'),
    ('不要在代码里加注释。', '以后代码里可以加注释了。', 'rule'),
    ('不要用英文术语。', '现在可以用英文术语了。', 'rule'),
    ('我喜欢你用列表回答。', '其实段落更好，别用列表。', 'answer_format'),
    ('回答请用要点列表。', '不对，我要的是段落。', 'answer_format'),
    ('我喜欢你用列表回答。', '我改主意了，段落比列表好。', 'answer_format'),
    ('我喜欢你用列表回答。', '我更喜欢段落，不喜欢列表了。', 'answer_format'),
    ('我喜欢你用列表回答。', '还是段落吧。', 'answer_format'),
    ('回答里不要用表格。', '我不反对表格了，可以用。', 'answer_format'),
    ('请用中文回答我。', '别用中文回答了，用英文。', 'answer_language'),
    ('叫我小王。', '别再叫我小王了，叫王总。', 'name'),
    ('我喜欢简短的回答。', '更正一下：回答详细一些。', 'answer_length'),
    ('我喜欢简短的回答。', '不要再简短了，详细点。', 'answer_length'),
    # a language as the only object, said to the assistant: no answer word needed
    ('请用英文回答我。', '改成中文吧。', 'answer_language'),
    ('请用英文回答我。', '以后都说中文吧。', 'answer_language'),
    ('请用英文回答我。', '还是说中文比较好。', 'answer_language'),
    ('我希望你用英语跟我说话。', '我要中文。', 'answer_language'),
    ('以后回答都用英文。', '英文不要了，换中文。', 'answer_language'),
    ('以后回答都用英文。', '别用英文了。', 'answer_language'),
    ('Please answer in English.', '请用中文。', 'answer_language'),
    ('请用英文回答我。', '中文，谢谢。', 'answer_language'),
    ('请用英文回答我。', '我们用中文聊吧。', 'answer_language'),
    ('请说英文。', '以后中文。', 'answer_language'),
    ('I prefer English answers.', '中文吧。', 'answer_language'),
    ('英文就好。', '还是中文好。', 'answer_language'),
    ('请说英文。', '你用中文答。', 'answer_language'),
    ('请说英文。', '用中文会更好。', 'answer_language'),
]


@pytest.mark.parametrize('via', ['capture', 'write'])
@pytest.mark.parametrize(('old', 'new', 'slot'), CORRECTIONS)
def test_a_chinese_correction_in_other_words_hides_what_it_corrects(
    client, auth, scope, via, old, new, slot
):  # type: ignore[no-untyped-def]
    [first] = said(client, auth, scope, old, via, user_id='ann')
    later = {s['id'] for s in said(client, auth, scope, new, via, user_id='ann')}
    stored = read(client, auth, first['id'])
    assert stored['superseded_by'] in later, stored
    record = stored['supersession']
    assert record['slot'] == slot, stored
    assert record['old_value'] and record['new_value'], record


KEPT = [
    ('我喜欢爬山。', '其实我也喜欢游泳。'),
    ('我住在北京。', '其实我在腾讯工作。'),
    ('我在腾讯工作。', '我去公司上班了。'),
    ('我在腾讯工作。', '我现在去北京出差了。'),
    ('我在腾讯工作。', '我朋友换到阿里巴巴工作了。'),
    ('叫我小王。', '我把小李改成了小张。'),
    ('我用Vim写代码。', '我同事把Vim换成了Emacs。'),
    ('回答里不要用emoji。', '以后代码里可以加注释了。'),
    ('请用中文回答我。', '我在学英语。'),
    ('我喜欢你用列表回答。', '我朋友说段落比列表好。'),
    ('我喜欢简短的回答。', '这篇报告不要再简短了，详细点。'),
    ('叫我小王。', '别叫他小王，叫他王总。'),
    ('请用英文回答我。', '我用中文写论文。'),
    ('请用英文回答我。', '我要学中文。'),
    ('请用英文回答我。', '他说中文。'),
    ('请用英文回答我。', '我中文不好。'),
    # a format word about what the speaker reads or makes, not about answers
    ('回答请用要点列表。', '我喜欢看段落很长的小说。'),
    ('我喜欢你用列表回答。', '我喜欢看表格。'),
    ('我喜欢你用段落回答。', '我喜欢读列表式的清单。'),
]


@pytest.mark.parametrize(('old', 'new'), KEPT)
def test_a_chinese_statement_of_another_subject_or_slot_corrects_nothing(
    client, auth, scope, old, new
):  # type: ignore[no-untyped-def]
    first = write(client, auth, scope, old, user_id='ann')
    second = write(client, auth, scope, new, user_id='ann')
    assert (second['superseded'], second['supersessions']) == ([], []), second
    assert read(client, auth, first['id'])['stale'] == []


ANSWERED = [
    ('请用中文回答我。', '英文就好。', '回答应该用哪种语言？'),
    ('我喜欢你用列表回答。', '写成一段话。', '我希望你怎么排版回答？'),
    ('请用英文回答我。', '改成中文吧。', '回答应该用哪种语言？'),
    ('以后回答都用英文。', '以后都说中文吧。', '我希望你用什么语言回答？'),
    ('请用英文回答我。', '还是说中文比较好。', '回答应该用哪种语言？'),
]


@pytest.mark.parametrize(('old', 'new', 'question'), ANSWERED)
def test_a_chinese_correction_answers_a_question_framed_in_other_words(
    client, auth, scope, old, new, question
):  # type: ignore[no-untyped-def]
    # the correction shares no word with the question but states the slot it asks (排版: the
    # answer format, 语言: the answer language): it clears the search's and the bundle's floors
    write(client, auth, scope, old, user_id='ann')
    second = write(client, auth, scope, new, user_id='ann')
    body = {'query': question, 'scope': scope, 'user_id': 'ann'}
    hits = client.post('/v1/memory_search', json=body, headers=auth).get_json()['hits']
    assert [h['id'] for h in hits][:1] == [second['id']], hits
    bundle = {'message': question, 'scope': scope, 'user_id': 'ann'}
    answer = client.post('/v1/recall/bundle', json=bundle, headers=auth).get_json()
    assert answer['ids'][:1] == [second['id']], answer


KEPT_WHOLE = [
    ('我喜欢你用列表回答。', '其实段落更好，别用列表。', '我希望你怎么排版回答？', '段落'),
    ('我喜欢你用列表回答。', '我更喜欢段落，不喜欢列表了。', '我希望你怎么排版回答？', '段落'),
    ('请用中文回答我。', '别用中文回答了，用英文。', '我希望你用什么语言回答？', '英文'),
    ('叫我小王。', '别再叫我小王了，叫王总。', '我希望别人叫我什么？', '王总'),
    ('回答里不要用表格。', '我不反对表格了，可以用。', '回答里能用表格吗？', '表格'),
]


@pytest.mark.parametrize(('old', 'new', 'question', 'value'), KEPT_WHOLE)
def test_a_captured_chinese_correction_keeps_the_new_value_with_what_it_replaces(
    client, auth, scope, old, new, question, value
):  # type: ignore[no-untyped-def]
    # capture cuts a turn into clauses: the clause that ends the old value and the one that
    # gives the new one stay one memory, and that memory answers first
    capture(client, auth, scope, old, user_id='ann')
    stored = capture(client, auth, scope, new, user_id='ann')['stored']
    assert len(stored) == 1, stored
    body = {'query': question, 'scope': scope, 'user_id': 'ann'}
    hits = client.post('/v1/memory_search', json=body, headers=auth).get_json()['hits']
    assert hits and hits[0]['id'] == stored[0]['id'] and value in hits[0]['text'], hits
