"""Write the labelled suite of bench/updates.py: facts that change, facts that accumulate, in
English and Chinese, as a client would send them.

python bench/updates_suite.py        # rewrites bench/data/updates_dev.jsonl and updates_test.jsonl

Cases are generated from the hand-written templates below with a fixed random seed, so the files
are reproducible; names, cities, companies, wordings and the question's phrasing vary per case
(the question's wording is drawn independently of the template that stated the facts). Each case
goes to the dev or the test half by a hash of its id, fixed before any tuning.

A case: `turns` (text, the message's time `at`, `via` write or capture, optional `user_id`), one
`question` (text, optional `user_id`), the `subject` the question is about (names the graph may
know it by), the `slot`, `gold` values the answer must name and `stale` values it must not.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / 'bench' / 'data'
SEED = 40

EN_PEOPLE = [
    ('Ann', 'ann'),
    ('Dana', 'dana'),
    ('Maya Patel', 'maya'),
    ('Omar', 'omar'),
    ('Lucas', 'lucas'),
    ('Priya', 'priya'),
    ('Grace Kim', 'grace'),
    ('Tom Baker', 'tom'),
    ('Elena', 'elena'),
    ('Sam Okafor', 'sam'),
    ('Nina', 'nina'),
    ('Victor Hugo Silva', 'victor'),
]
EN_CITIES = [
    'Paris', 'Berlin', 'Leeds', 'York', 'Lisbon', 'Toronto', 'Austin', 'Denver', 'Madrid',
    'Oslo', 'Dublin', 'Seattle', 'Boston', 'Vienna', 'Prague', 'Munich', 'Edinburgh', 'Sydney',
]  # fmt: skip
EN_COMPANIES = [
    'Acme Corp', 'Globex', 'Initech', 'Arup', 'Hooli', 'Umbrella Health', 'Stark Industries',
    'Wayne Enterprises', 'Cyberdyne', 'Tyrell Labs', 'Soylent Foods', 'Vandelay Industries',
    'Massive Dynamic', 'Pied Piper',
]  # fmt: skip
EN_TITLES = [
    'data analyst', 'software engineer', 'product manager', 'nurse', 'teacher', 'architect',
    'accountant', 'designer', 'sales director', 'research scientist',
]  # fmt: skip
EN_EDITORS = ['Vim', 'Emacs', 'VS Code', 'Sublime Text', 'PyCharm', 'Neovim', 'Zed']

ZH_PEOPLE = [
    ('张伟', 'zhangwei'),
    ('李娜', 'lina'),
    ('王芳', 'wangfang'),
    ('刘洋', 'liuyang'),
    ('陈静', 'chenjing'),
    ('赵磊', 'zhaolei'),
    ('孙丽', 'sunli'),
    ('周杰', 'zhoujie'),
    ('吴敏', 'wumin'),
    ('黄涛', 'huangtao'),
]
ZH_CITIES = [
    '北京', '上海', '广州', '深圳', '杭州', '成都', '南京', '武汉', '西安', '苏州', '重庆',
    '天津', '厦门', '青岛', '长沙',
]  # fmt: skip
ZH_COMPANIES = [
    '阿里巴巴', '字节跳动', '腾讯', '华为', '百度', '京东', '美团', '小米', '网易', '拼多多',
    '滴滴', '比亚迪',
]  # fmt: skip
ZH_TITLES = ['产品经理', '数据分析师', '软件工程师', '设计师', '销售总监', '会计', '老师', '医生']

# --------------------------------------------------------------------------- single-valued slots
# old: how the first value is stated; new: how the change is stated; each {v} the value.
# 'i' templates are said by the user themself, 'third' name the subject ({n}).
SLOTS: dict[str, dict[str, Any]] = {
    'en:lives_in': {
        'values': EN_CITIES,
        'old_i': ['I live in {v}.', 'I live in {v} with my two cats.', "I'm based in {v}."],
        'new_i': [
            'I moved to {v} last month.',
            "I've relocated to {v}.",
            'I live in {v} now.',
            'We just moved to {v}.',
            'I moved from {o} to {v}.',
        ],
        'old_third': ['{n} lives in {v}.', '{n} lives in {v} near the river.'],
        'new_third': ['{n} moved to {v}.', '{n} has relocated to {v}.', '{n} lives in {v} now.'],
        'q_i': [
            'Where do I live?',
            'Which city am I living in now?',
            'Where is my home these days?',
            'What city do I live in?',
        ],
        'q_third': [
            'Where does {n} live?',
            'What city is {n} based in?',
            'Where does {n} live now?',
            'Which city does {n} call home?',
        ],
        'q_past_i': ['Where did I live {t}?', 'Which city was I living in {t}?'],
        'q_past_third': ['Where did {n} live {t}?', 'Which city was {n} living in {t}?'],
    },
    'en:works_at': {
        'values': EN_COMPANIES,
        'old_i': ['I work at {v}.', "I'm an engineer at {v}.", 'I work for {v} these days.'],
        'new_i': [
            'I just started a new job at {v}.',
            'I switched jobs, I work at {v} now.',
            'I joined {v} this month.',
            'I left {o} and joined {v}.',
            'I accepted an offer from {v} and started there last week.',
        ],
        'old_third': ['{n} works at {v}.', '{n} is an analyst at {v}.'],
        'new_third': [
            '{n} joined {v}.',
            '{n} left {o} and now works at {v}.',
            '{n} works at {v} now.',
        ],
        'q_i': [
            'Where do I work?',
            'Who is my employer now?',
            'Which company do I work for?',
            'What is my current job?',
        ],
        'q_third': [
            'Where does {n} work now?',
            'What company is {n} at?',
            'Who employs {n}?',
            'Where does {n} work?',
        ],
        'q_past_i': ['Where did I work {t}?', 'Which company was I working for {t}?'],
        'q_past_third': ['Where did {n} work {t}?', 'Which company employed {n} {t}?'],
    },
    'en:title': {
        'values': EN_TITLES,
        'old_i': ["I'm a {v}.", 'I work as a {v}.'],
        'new_i': [
            'I got promoted, I am a {v} now.',
            "I'm a {v} now.",
            'I changed careers and became a {v}.',
        ],
        'old_third': ['{n} is a {v}.', '{n} works as a {v}.'],
        'new_third': ['{n} is a {v} now.', '{n} became a {v}.'],
        'q_i': ['What is my job title?', 'What do I do for a living?', 'What is my role now?'],
        'q_third': ['What is the job title of {n}?', 'What does {n} do for a living?'],
        'q_past_i': ['What was my job {t}?'],
        'q_past_third': ['What was the job of {n} {t}?'],
    },
    'en:editor': {
        'values': EN_EDITORS,
        'old_i': ['I use {v} as my editor.', 'My code editor is {v}.'],
        'new_i': [
            'I switched to {v} as my editor.',
            'My editor is {v} now.',
            'I moved from {o} to {v} for editing code.',
        ],
        'old_third': ['{n} uses {v} as a code editor.'],
        'new_third': ['{n} switched to {v} as a code editor.'],
        'q_i': ['Which editor do I use?', 'What code editor am I using now?'],
        'q_third': ['Which editor does {n} use?'],
        'q_past_i': ['Which editor did I use {t}?'],
        'q_past_third': ['Which editor did {n} use {t}?'],
    },
    'zh:lives_in': {
        'values': ZH_CITIES,
        'old_i': ['我住在{v}。', '我在{v}生活。', '我家在{v}。'],
        'new_i': [
            '我上个月搬到了{v}。',
            '我搬到{v}了。',
            '我现在住在{v}。',
            '我们全家搬去{v}了。',
            '我从{o}搬到了{v}。',
        ],
        'old_third': ['{n}住在{v}。', '{n}在{v}生活。'],
        'new_third': ['{n}搬到{v}了。', '{n}现在住在{v}。', '{n}从{o}搬到了{v}。'],
        'q_i': ['我住在哪里？', '我现在住哪个城市？', '我家现在在哪儿？', '我在哪个城市生活？'],
        'q_third': [
            '{n}住在哪里？',
            '{n}现在在哪个城市生活？',
            '{n}住哪儿？',
            '{n}现在住在哪个城市？',
        ],
        'q_past_i': ['我{t}住在哪里？', '{t}我住在哪个城市？'],
        'q_past_third': ['{n}{t}住在哪里？', '{t}{n}住在哪个城市？'],
    },
    'zh:works_at': {
        'values': ZH_COMPANIES,
        'old_i': ['我在{v}工作。', '我在{v}上班。', '我在{v}做产品经理。'],
        'new_i': [
            '我跳槽到{v}了。',
            '我上个月入职了{v}。',
            '我现在在{v}上班。',
            '我离开了{o}，加入了{v}。',
            '我从{o}跳槽到了{v}。',
        ],
        'old_third': ['{n}在{v}工作。', '{n}在{v}上班。'],
        'new_third': ['{n}跳槽到了{v}。', '{n}从{o}跳槽到了{v}。', '{n}现在在{v}工作。'],
        'q_i': [
            '我在哪里工作？',
            '我现在在哪家公司上班？',
            '我的雇主是哪家公司？',
            '我在哪儿上班？',
        ],
        'q_third': [
            '{n}在哪里工作？',
            '{n}现在在哪家公司？',
            '{n}在哪儿上班？',
            '{n}在哪家公司任职？',
        ],
        'q_past_i': ['我{t}在哪里工作？', '{t}我在哪家公司上班？'],
        'q_past_third': ['{n}{t}在哪里工作？', '{t}{n}在哪家公司上班？'],
    },
    'zh:title': {
        'values': ZH_TITLES,
        'old_i': ['我是一名{v}。', '我的工作是{v}。'],
        'new_i': ['我升职了，现在是{v}。', '我现在是{v}了。', '我转行当了{v}。'],
        'old_third': ['{n}是一名{v}。'],
        'new_third': ['{n}现在是{v}了。', '{n}转行当了{v}。'],
        'q_i': ['我的职位是什么？', '我现在做什么工作？', '我是做什么的？'],
        'q_third': ['{n}的职位是什么？', '{n}现在做什么工作？'],
        'q_past_i': ['我{t}做什么工作？'],
        'q_past_third': ['{n}{t}做什么工作？'],
    },
}
KG_SLOTS = {'lives_in', 'works_at'}  # the slots the graph states as facts

# --------------------------------------------------------------------------- many-valued facts
COMPATIBLE: dict[str, list[dict[str, Any]]] = {
    'en': [
        {
            'values': ['hiking', 'swimming', 'climbing', 'cycling', 'kayaking', 'running'],
            'facts': [
                'I like {v}.',
                'I love {v}.',
                'I enjoy {v} on weekends.',
                'I really like {v}.',
            ],
            'q': [
                'What outdoor activities do I like?',
                'What are my hobbies?',
                'What do I enjoy doing?',
                'Which sports do I like?',
            ],
        },
        {
            'values': ['French', 'Japanese', 'Spanish', 'German', 'Portuguese', 'Korean'],
            'facts': ['I speak {v}.', 'I also speak {v}.', 'I can speak {v} fluently.'],
            'q': ['Which languages do I speak?', 'What languages can I speak?'],
        },
        {
            'values': [
                'a cat named Miso',
                'a dog named Rex',
                'a parrot named Kiwi',
                'a rabbit named Bun',
            ],
            'facts': ['I have {v}.', 'I also have {v}.'],
            'q': ['What pets do I have?', 'Do I have any animals at home?'],
            'gold_word': -1,
        },
        {
            'values': ['Python', 'Rust', 'Go', 'Kotlin', 'TypeScript', 'Haskell'],
            'facts': ['I know {v}.', 'I write {v} at work.', "I'm good at {v}."],
            'q': ['Which programming languages do I know?', 'What languages do I code in?'],
        },
        {
            'pairs': [('dogs', 'cats'), ('coffee', 'tea'), ('jazz', 'techno'), ('sushi', 'olives')],
            'facts': ['I like {a}.', "I don't like {b}."],
            'q': ['What do I like and dislike?', 'How do I feel about {a} and {b}?'],
        },
    ],
    'zh': [
        {
            'values': ['爬山', '游泳', '跑步', '骑车', '打羽毛球', '滑雪'],
            'facts': ['我喜欢{v}。', '我很喜欢{v}。', '我周末喜欢{v}。', '我爱{v}。'],
            'q': ['我有哪些爱好？', '我平时喜欢做什么运动？', '我喜欢什么活动？'],
        },
        {
            'values': ['法语', '日语', '西班牙语', '德语', '韩语'],
            'facts': ['我会说{v}。', '我也会说{v}。', '我{v}说得很流利。'],
            'q': ['我会哪些语言？', '我会说什么外语？'],
        },
        {
            'values': ['一只猫叫咪咪', '一条狗叫旺财', '一只鹦鹉叫豆豆', '一只兔子叫团团'],
            'facts': ['我养了{v}。', '我还养了{v}。'],
            'q': ['我养了什么宠物？', '我家里有哪些小动物？'],
            'gold_word': -1,
        },
        {
            'pairs': [('喝咖啡', '喝茶'), ('吃辣', '吃甜食'), ('看电影', '看综艺'), ('猫', '狗')],
            'facts': ['我喜欢{a}。', '我不喜欢{b}。'],
            'q': ['我喜欢什么，不喜欢什么？', '我对{a}和{b}的态度是什么？'],
        },
    ],
}

# --------------------------------------------------------------------------- corrections
# each topic: an old preference, >= 5 wordings of the correction, questions, gold / stale marks
CORRECTIONS: dict[str, list[dict[str, Any]]] = {
    'en': [
        {
            'old': [
                'I prefer bullet points in your answers.',
                'Please use bullet points when you answer me.',
            ],
            'new': [
                'I no longer like bullet points, I prefer prose.',
                'I prefer prose now, no more bullet points.',
                'I no longer want bullet points in answers. Please write prose paragraphs.',
                'I now prefer prose over bullet points.',
                'From now on, use prose instead of bullet points.',
                'Actually, write in prose rather than bullet points from now on.',
            ],
            'q': [
                'How should you format your answers for me?',
                'What answer style do I prefer?',
                'Do I want bullet points or prose?',
            ],
            'gold': 'prose',
            'stale': 'bullet',
        },
        {
            'values': [('English', 'Spanish'), ('English', 'German'), ('French', 'English')],
            'old': ['Please reply in {a}.', 'Always answer me in {a}.'],
            'new': [
                'From now on reply in {b}.',
                'Answer in {b} instead of {a}.',
                'I no longer want {a} replies, use {b}.',
                'Switch to {b} for your replies from now on.',
                'Please use {b} now, not {a}.',
                'Stop replying in {a}; {b} from now on.',
            ],
            'q': ['Which language should you answer in?', 'What language do I want replies in?'],
            'gold': '{b}',
            'stale': '{a}',
        },
        {
            'values': [
                ('Bob', 'Robert'),
                ('Kate', 'Katherine'),
                ('Mike', 'Michael'),
                ('Liz', 'Beth'),
            ],
            'old': ['Call me {a}.', 'Please call me {a}.'],
            'new': [
                'Please call me {b} instead.',
                'I no longer go by {a}, call me {b}.',
                'From now on call me {b}.',
                "Don't call me {a} anymore, it's {b}.",
                'I prefer {b} now instead of {a}.',
                'Call me {b} from now on, not {a}.',
            ],
            'q': ['What should you call me?', 'What name do I want to be called?'],
            'gold': '{b}',
            'stale': '{a}',
        },
        {
            'values': [('miles', 'kilometres'), ('Fahrenheit', 'Celsius'), ('pounds', 'kilograms')],
            'old': ['Use {a} when you give me measurements.', 'I prefer {a} for measurements.'],
            'new': [
                'Use {b} instead of {a}.',
                'I no longer want {a}, give me {b}.',
                'From now on use {b}.',
                'I prefer {b} now, not {a}.',
                'Switch to {b} for measurements from now on.',
                'Stop using {a}; {b} please.',
            ],
            'q': [
                'Which units should you use for measurements?',
                'What unit do I want measurements in?',
            ],
            'gold': '{b}',
            'stale': '{a}',
        },
        {
            'old': ['Keep your answers short.', 'I prefer short answers.'],
            'new': [
                'I prefer detailed answers now.',
                'I no longer want short answers, give me detailed ones.',
                'From now on give detailed answers instead of short ones.',
                'Please write detailed answers, not short ones.',
                'Stop keeping answers short; detailed from now on.',
                'I now prefer detailed explanations over short answers.',
            ],
            'q': ['How long should your answers be?', 'Do I want short or detailed answers?'],
            'gold': 'detailed',
            'stale': 'short',
        },
    ],
    'zh': [
        {
            'old': ['回答请用要点列表。', '我喜欢你用列表回答。'],
            'new': [
                '以后不要用列表了，改成段落。',
                '我不再喜欢列表，请用段落写。',
                '改成用段落回答吧。',
                '以后回答用段落，不用列表。',
                '别再用列表了，用段落。',
                '从现在开始用段落代替列表。',
            ],
            'q': ['我希望你怎么排版回答？', '回答应该用列表还是段落？'],
            'gold': '段落',
            'stale': '列表',
        },
        {
            'old': ['回答里不要用表格。', '不要在回答中使用表格。'],
            'new': [
                '以后回答可以用表格了。',
                '现在可以用表格了。',
                '我改主意了，回答可以用表格。',
                '不再禁止表格，以后可以用。',
                '表格以后可以用了。',
                '从现在起回答里可以用表格。',
            ],
            'q': ['回答里能用表格吗？', '我对表格的要求是什么？'],
            'gold': '可以',
            'stale': '不要',
        },
        {
            'values': [('英文', '中文'), ('中文', '英文'), ('英文', '日文')],
            'old': ['请用{a}回答我。', '以后都用{a}回答。'],
            'new': [
                '以后用{b}回答我。',
                '不再用{a}了，改成{b}。',
                '改成{b}回答。',
                '请用{b}回答，不要{a}了。',
                '从现在起用{b}。',
                '别用{a}了，换成{b}。',
            ],
            'q': ['我希望你用什么语言回答？', '回答应该用哪种语言？'],
            'gold': '{b}',
            'stale': '{a}',
        },
        {
            'values': [('小王', '王总'), ('小李', '李老师'), ('阿杰', '杰哥')],
            'old': ['叫我{a}。', '你可以叫我{a}。'],
            'new': [
                '以后叫我{b}。',
                '不要再叫我{a}了，叫我{b}。',
                '改成叫我{b}吧。',
                '从现在起叫我{b}。',
                '别叫我{a}了，以后叫{b}。',
                '我不再用{a}这个称呼了，叫我{b}。',
            ],
            'q': ['你应该怎么称呼我？', '我希望别人叫我什么？'],
            'gold': '{b}',
            'stale': '{a}',
        },
        {
            'old': ['回答简短一点。', '我喜欢简短的回答。'],
            'new': [
                '以后回答详细一点。',
                '不再要简短的回答了，要详细的。',
                '改成详细回答吧。',
                '从现在开始回答要详细。',
                '别太简短了，以后详细一些。',
                '我现在更喜欢详细的回答。',
            ],
            'q': ['回答应该多长？', '我喜欢简短还是详细的回答？'],
            'gold': '详细',
            'stale': '简短',
        },
    ],
}

UNRELATED = {
    'en': [
        "What's the capital of Peru?",
        'How do I bake sourdough bread?',
        'Explain how a TCP handshake works.',
        'What is the boiling point of water on Everest?',
        'Who wrote the Odyssey?',
        'How many moons does Jupiter have?',
        'Give me a haiku about autumn.',
        'What is the derivative of sin x?',
        'How do I reverse a linked list?',
        'Recommend a board game for four players.',
    ],
    'zh': [
        '秘鲁的首都是哪里？',
        '怎么做红烧肉？',
        'TCP三次握手是什么？',
        '明天会下雨吗？',
        '《红楼梦》的作者是谁？',
        '木星有几颗卫星？',
        '帮我写一首关于秋天的诗。',
        '怎么反转一个链表？',
        '推荐一款四个人玩的桌游。',
        '光速是多少？',
    ],
}
PAST_PHRASES = {
    'en': [
        ('in 2025', '2025-06-01'),
        ('back in 2025', '2025-06-01'),
        ('in March 2025', '2025-03-15'),
    ],
    'zh': [('2025年', '2025-06-01'), ('2025年3月', '2025-03-15'), ('在2025年', '2025-06-01')],
}


class Builder:
    """Draws cases from the templates with one seeded random source."""

    def __init__(self, lang: str, seed: int) -> None:
        self.lang = lang
        self.rng = random.Random(f'{seed}:{lang}')
        self.count: dict[str, int] = {}
        self.people = EN_PEOPLE if lang == 'en' else ZH_PEOPLE

    def ident(self, category: str) -> str:
        n = self.count.get(category, 0) + 1
        self.count[category] = n
        return f'{self.lang}-{category}-{n:03d}'

    def date(self, year: int, lo: int = 1, hi: int = 12) -> str:
        month = self.rng.randint(lo, hi)
        day = self.rng.randint(1, 28)
        hour, minute = self.rng.randint(8, 20), self.rng.choice((0, 15, 30, 45))
        return f'{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:00Z'

    def speaker(self) -> dict[str, Any]:
        """How the subject is named: 'i' (user_id set), 'prefix' ("Name: ..."), 'third', or
        'capture' (the turn offered to capture with a user_id)."""
        name, uid = self.rng.choice(self.people)
        mode = self.rng.choice(['i', 'i', 'prefix', 'third', 'capture'])
        return {'mode': mode, 'name': name, 'uid': uid}

    def say(
        self, who: dict[str, Any], templates: dict[str, Any], key: str, **values: str
    ) -> dict[str, Any]:
        third = who['mode'] == 'third'
        text = self.rng.choice(templates[f'{key}_third' if third else f'{key}_i'])
        text = text.format(n=who['name'], **values)
        return self.turn(who, text)

    def turn(self, who: dict[str, Any], text: str, at: str | None = None) -> dict[str, Any]:
        sep = ':' if self.lang == 'en' else '：'
        if self.lang == 'en':
            text = re.sub(r'\ba (?=[aeiou])', 'an ', text)
        item: dict[str, Any] = {'text': text, 'via': 'write'}
        if who['mode'] == 'prefix':
            item['text'] = (
                f'{who["name"]}{sep} {text}' if self.lang == 'en' else f'{who["name"]}{sep}{text}'
            )
        if who['mode'] in ('i', 'capture'):
            item['user_id'] = who['uid']
        if who['mode'] == 'capture':
            item['via'] = 'capture'
        if at is not None:
            item['at'] = at
        return item

    def ask(
        self,
        who: dict[str, Any],
        templates: list[str] | dict[str, Any],
        key: str = 'q',
        **values: str,
    ) -> dict[str, Any]:
        if isinstance(templates, dict):
            third = who['mode'] in ('third', 'prefix')
            pool = templates[f'{key}_third' if third else f'{key}_i']
        else:
            pool = templates
        question: dict[str, Any] = {'text': self.rng.choice(pool).format(n=who['name'], **values)}
        if who['mode'] in ('i', 'capture'):
            question['user_id'] = who['uid']
        return question

    @staticmethod
    def subject(who: dict[str, Any]) -> list[str]:
        return [who['name'], who['uid']] if who['mode'] in ('i', 'capture') else [who['name']]

    # ----------------------------------------------------------------------- categories

    def slot_change(self, category: str) -> dict[str, Any]:
        key = self.rng.choice([k for k in SLOTS if k.startswith(self.lang)])
        if category == 'past':  # the graph states these slots with time
            key = self.rng.choice([f'{self.lang}:lives_in', f'{self.lang}:works_at'])
        spec = SLOTS[key]
        slot = key.split(':', 1)[1]
        old, new = self.rng.sample(spec['values'], 2)
        who = self.speaker()
        turns = [
            {**self.say(who, spec, 'old', v=old), 'at': self.date(2024, 1, 6)},
            {**self.say(who, spec, 'new', v=new, o=old), 'at': self.date(2026, 3, 9)},
        ]
        case: dict[str, Any] = {
            'id': self.ident(category),
            'lang': self.lang,
            'category': category,
            'slot': slot,
            'kg': slot in KG_SLOTS,
            'subject': self.subject(who),
            'turns': turns,
        }
        if category == 'current':
            case.update(question=self.ask(who, spec), gold=[new], stale=[old])
        else:
            phrase, as_of = self.rng.choice(PAST_PHRASES[self.lang])
            case.update(
                question=self.ask(who, spec, 'q_past', t=phrase),
                gold=[old],
                stale=[new],
                as_of=f'{as_of}T12:00:00Z',
            )
        return case

    def compatible(self) -> dict[str, Any]:
        spec = self.rng.choice(COMPATIBLE[self.lang])
        uid = self.rng.choice(self.people)[1]
        who = {'mode': self.rng.choice(['i', 'capture']), 'name': uid, 'uid': uid}
        if 'pairs' in spec:
            a, b = self.rng.choice(spec['pairs'])
            texts = [t.format(a=a, b=b) for t in spec['facts']]
            gold = [a, b]
            question = self.ask(who, spec['q'], a=a, b=b)
        else:
            values = self.rng.sample(spec['values'], self.rng.choice((2, 2, 3)))
            texts = [self.rng.choice(spec['facts']).format(v=v) for v in values]
            gold = [v.split()[-1] if spec.get('gold_word') == -1 else v for v in values]
            if self.lang == 'zh' and spec.get('gold_word') == -1:
                gold = [v.split('叫')[-1] for v in values]
            question = self.ask(who, spec['q'])
        turns = [
            {**self.turn(who, t), 'at': self.date(2026, 1 + i * 3, 3 + i * 3)}
            for i, t in enumerate(texts)
        ]
        return {
            'id': self.ident('compatible'),
            'lang': self.lang,
            'category': 'compatible',
            'slot': 'many',
            'kg': False,
            'subject': self.subject(who),
            'turns': turns,
            'question': question,
            'gold': gold,
            'stale': [],
        }

    def corrections(self) -> list[dict[str, Any]]:
        cases = []
        for topic in CORRECTIONS[self.lang]:
            for wording in topic['new']:
                a, b = self.rng.choice(topic.get('values', [('', '')]))
                uid = self.rng.choice(self.people)[1]
                who = {'mode': self.rng.choice(['i', 'i', 'capture']), 'name': uid, 'uid': uid}
                turns = [
                    {
                        **self.turn(who, self.rng.choice(topic['old']).format(a=a, b=b)),
                        'at': self.date(2026, 1, 4),
                    },
                    {**self.turn(who, wording.format(a=a, b=b)), 'at': self.date(2026, 6, 10)},
                ]
                cases.append(
                    {
                        'id': self.ident('correction'),
                        'lang': self.lang,
                        'category': 'correction',
                        'slot': 'preference',
                        'kg': False,
                        'subject': self.subject(who),
                        'turns': turns,
                        'question': self.ask(who, topic['q']),
                        'gold': [topic['gold'].format(a=a, b=b)],
                        'stale': [topic['stale'].format(a=a, b=b)],
                    }
                )
        return cases

    def multifact(self) -> list[dict[str, Any]]:
        """One turn states home and job; a later turn changes one of them. Two cases: the kept
        slot must still answer, the changed one must answer with the new value."""
        lang = self.lang
        cities = EN_CITIES if lang == 'en' else ZH_CITIES
        companies = EN_COMPANIES if lang == 'en' else ZH_COMPANIES
        titles = EN_TITLES if lang == 'en' else ZH_TITLES
        city, city2 = self.rng.sample(cities, 2)
        company, company2 = self.rng.sample(companies, 2)
        title = self.rng.choice(titles)
        who = self.speaker()
        if who['mode'] == 'third':
            who['mode'] = 'i'
        if lang == 'en':
            first = self.rng.choice(
                [
                    f'I live in {city} and work at {company} as a {title}.',
                    f"I'm a {title} at {company} and I live in {city}.",
                    f'I work at {company} and my home is in {city}.',
                ]
            )
        else:
            first = self.rng.choice(
                [
                    f'我住在{city}，在{company}做{title}。',
                    f'我在{company}上班，家住{city}。',
                    f'我是{company}的{title}，住在{city}。',
                ]
            )
        moves = self.rng.random() < 0.5
        if moves:
            second = self.rng.choice(SLOTS[f'{lang}:lives_in']['new_i']).format(v=city2, o=city)
            changed, kept = ('lives_in', city2, city), ('works_at', company)
        else:
            second = self.rng.choice(SLOTS[f'{lang}:works_at']['new_i']).format(
                v=company2, o=company
            )
            changed, kept = ('works_at', company2, company), ('lives_in', city)
        turns = [
            {**self.turn(who, first), 'at': self.date(2025, 2, 8)},
            {**self.turn(who, second), 'at': self.date(2026, 4, 9)},
        ]
        base = {'lang': lang, 'category': 'multifact', 'subject': self.subject(who), 'turns': turns}
        kept_q = self.ask(who, SLOTS[f'{lang}:{kept[0]}'])
        changed_q = self.ask(who, SLOTS[f'{lang}:{changed[0]}'])
        return [
            {
                **base,
                'id': self.ident('multifact'),
                'slot': kept[0],
                'kg': True,
                'question': kept_q,
                'gold': [kept[1]],
                'stale': [],
                'kept': True,
            },
            {
                **base,
                'id': self.ident('multifact'),
                'slot': changed[0],
                'kg': True,
                'question': changed_q,
                'gold': [changed[1]],
                'stale': [changed[2]],
            },
        ]

    def unrelated(self) -> dict[str, Any]:
        facts = []
        for _ in range(3):
            key = self.rng.choice([k for k in SLOTS if k.startswith(self.lang)])
            facts.append(
                self.rng.choice(SLOTS[key]['old_i']).format(v=self.rng.choice(SLOTS[key]['values']))
            )
        uid = self.rng.choice(self.people)[1]
        who = {'mode': self.rng.choice(['i', 'capture']), 'name': uid, 'uid': uid}
        turns = [{**self.turn(who, t), 'at': self.date(2026, 1, 9)} for t in facts]
        return {
            'id': self.ident('unrelated'),
            'lang': self.lang,
            'category': 'unrelated',
            'slot': 'none',
            'kg': False,
            'subject': self.subject(who),
            'turns': turns,
            'question': self.ask(who, UNRELATED[self.lang]),
            'gold': [],
            'stale': [],
        }


def build(lang: str) -> list[dict[str, Any]]:
    """Every case of one language."""
    b = Builder(lang, SEED)
    cases = [b.slot_change('current') for _ in range(50)]
    cases += [b.slot_change('past') for _ in range(26)]
    cases += [b.compatible() for _ in range(20)]
    cases += b.corrections()
    for _ in range(11):
        cases += b.multifact()
    cases += [b.unrelated() for _ in range(20)]
    return cases


def half(case_id: str) -> str:
    """'dev' or 'test', from a fixed hash of the id (never from the results)."""
    return 'dev' if hashlib.sha256(case_id.encode()).digest()[0] % 2 == 0 else 'test'


def main() -> int:
    """Generate both languages and write the two halves."""
    cases = build('en') + build('zh')
    DATA.mkdir(parents=True, exist_ok=True)
    for name in ('dev', 'test'):
        rows = [c for c in cases if half(c['id']) == name]
        path = DATA / f'updates_{name}.jsonl'
        path.write_text(
            ''.join(json.dumps(c, ensure_ascii=False) + '\n' for c in rows), encoding='utf-8'
        )
        counts: dict[str, int] = {}
        for c in rows:
            counts[c['lang']] = counts.get(c['lang'], 0) + 1
        print(f'{path.relative_to(ROOT)}: {len(rows)} cases {counts}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
