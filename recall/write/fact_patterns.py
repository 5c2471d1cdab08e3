"""The vocabulary of `recall.write.facts`: clause cuts, subjects, slot patterns and value
shapes in English and Chinese. Data only; `facts` applies them."""

from __future__ import annotations

import re

from core.lazy_re import lazy_compile

# compiled on first use (core/lazy_re.py): a start imports this table and uses little of it
SPEAKER = lazy_compile(r'^\s*[A-Z\u4e00-\u9fff][\w\u4e00-\u9fff .\'-]{0,40}?\s*[:：]\s*(?=\S)')

CLAUSE_CUT = lazy_compile(
    r'[。！？!?；;\n]+|(?<![\d])[.](?=\s|$)|[,，、]\s*|\s+(?:and|but|while|whereas|so)\s+|'
    r'(?:而且|并且|同时|但是|不过|然后)'
)

# "not Vim but Emacs", "I live not in Paris, but in Berlin", "I don't work at Acme but at
# Globex": one clause that names the old value and the new one. "not only X but also Y" adds,
# and "…, but I/it …" starts a clause of its own
NOT_BUT_EN = lazy_compile(
    r"(?i)(?P<neg>\b(?:do|does|did)(?: not|n't) |\bnot |n't )"
    r'(?!(?:only|just|merely|simply|even|sure|that|so|too|very|really)\b)'
    r"(?P<o>(?:[\w'.+&-]+ ){0,4}?[\w'.+&-]+)(?P<cut>,? but (?:rather )?)"
    r"(?!(?:also|i|i'm|i've|i'd|we|you|he|she|it|it's|they|there|that|this|my|our|your|not)\b)"
    r"(?P<n>[\w'.+&-]+(?: [\w'.+&-]+){0,4}?)(?=\s*(?:$|[,.;!?]|\b(?:and|so|now|anymore|"
    r'instead|please|from now on)\b))'
)

# a preposition that opens a value ("in Paris", "at Acme"): the old value of a "not X but Y"
# correction is the part of X that opens with the same one
VALUE_PREP_EN = lazy_compile(r'(?i)^(?P<p>in|at|to|for|with|from|on|by|into) ')

# a preference said as a correction without naming what it corrects: "Actually, I prefer Beth",
# "On second thought I'd prefer coffee", "I prefer Beth instead": it replaces the speaker's
# latest value of a slot a preference restates (`AMENDED`)
AMEND_EN = lazy_compile(
    r'(?i)^(?:\W*(?:ok|okay|oh|well|so|hmm|right)\b)*\W*(?:(?:actually|correction|sorry|oops|'
    r'wait|on second thoughts?|scratch that)\b|(?:no|i mean|i meant)\s*,)|'
    r'\b(?:instead|now|after all|these days)\W*$'
)
# a name where a preference is stated ("I prefer Beth"): capitalised words, not a language, an
# editor or a day
PREFERRED_NAME_EN = lazy_compile(
    r'\bprefer(?:s|red)?\s+(?!(?:English|Chinese|Mandarin|Japanese|German|French|Spanish|'
    r'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mondays|Tuesdays|Wednesdays|'
    r"Thursdays|Fridays|Saturdays|Sundays)\b)(?P<v>[A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?)"
    r'(?:\s+(?:instead|now|after all|these days))?\W*$'
)
# the slots a preference said as a correction may replace: "Call me Anna" ... "Actually I
# prefer Beth" (a name), "I prefer tea" ... "Actually I prefer coffee"
AMENDED = ('name', 'prefers')

LEAD = lazy_compile(
    r'^(?:(?:so|and|but|also|well|oh|ok|okay|actually|anyway|btw|by the way|yes|hey|hi|'
    r'update|fyi|news|quick update|correction|please note|sorry|oops|wait|hmm|'
    r'on second thoughts?|scratch that)\b[,:!]?\s*|(?:no|i mean|i meant)\s*[,:!]\s*|'
    # "其实我在阿里巴巴工作", "更正一下：…": a Chinese discourse lead before the fact; the short
    # or ambiguous ones only before a stop ("不对称", "更正式" are words)
    r'(?:其实|实际上|说实话|老实说|准确地说|确切地说|应该说|对了|另外|更正一下|纠正一下|'
    r'(?:我|刚才)?(?:说错了|搞错了|记错了))[,，:：!！]?\s*|'
    r'(?:不对|更正|纠正|哦|嗯|好吧|抱歉|不好意思)[,，:：!！]\s*)+',
    re.IGNORECASE,
)

# a clause that is only a lead ("Actually", "No", "On second thought"): it belongs to the next
LEAD_ONLY = lazy_compile(
    r'(?i)(?:(?:so|and|but|also|well|oh|ok|okay|actually|anyway|btw|by the way|yes|hey|hi|'
    r'update|fyi|correction|sorry|oops|wait|hmm|on second thoughts?|scratch that|no|i mean|'
    r'i meant)\W*)+'
)

TIME_EN = (
    r'(?:last|this|next) (?:week|month|year|spring|summer|autumn|fall|winter)|yesterday|today|'
    r'recently|lately|nowadays|these days|currently|now|since \w+(?: \d{4})?|in \d{4}|'
    r'as of \w+(?: \d{4})?|(?:\d+|a|an|one|two|three|a few|several) (?:days?|weeks?|months?|'
    r'years?) ago|back in \d{4}|from now on|starting (?:today|now|\w+day)'
)

TIME_ZH = (
    r'(?:去年|今年|前年|明年|上个?月|这个?月|本月|下个?月|上周|这周|本周|昨天|今天|前天|最近|现在|目前|'
    r'如今|已经|刚刚?|终于|以前|之前|曾经|原来|过去|当年|那时|后来|从今天起|从现在起|以后|'
    r'\d{4}\s*年(?:\s*\d{1,2}\s*月)?)'
)

TIME_LEAD_ZH = lazy_compile(rf'^(?:{TIME_ZH}|[,，\s])+')

TIME_LEAD_EN = lazy_compile(rf'^(?:(?:{TIME_EN})[,]?\s+)+', re.IGNORECASE)

# words a capitalised subject may start with that name no one
# "Don't use tables" is an order, not what someone named Don't does ("Emoji are fine now" too)
NOT_NAMES = frozenset(
    re.findall(
        r"[\w']+",
        'the this that these those it its we our they their he she his her you your i my me '
        'please let from as in on at since last next yesterday today now also use using '
        'switched moved answer reply write answers replies no not never always just then '
        'there here what when where who why how lucky favourite favorite new old current dear '
        'thanks thank hello sure remember note do does did is are was were will would can '
        'could should some any every after before while if because so and but or one two all '
        "most both few many much more don't emoji emojis emoticons",
    )
)

NAME_EN = r"[A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?"

SUBJECT_EN = lazy_compile(
    rf"^(?P<self>(?i:i(?:'m|'ve|'d|'ll)?|me|my|we|our))\b|^(?P<name>{NAME_EN})(?='s\b|\s+"
    r'(?:is|was|are|has|had|works?|worked|lives?|lived|moved|joined|likes?|liked|loves?|hates?|'
    r'prefers?|uses?|used|switched|started|left|got|became|speaks?|enjoys?|no|now|just|also|'
    r"still|recently|doesn't|does|did|never|owns?|drives?|studies|teaches|married|relocated|"
    r'quit|accepted|took|dislikes?|plays?|drinks?|eats?)\b)',
)

ZH_NAME = lazy_compile(
    r'^(?=[王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程'
    r'苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万'
    r'钱严覃武戴莫孔向汤欧阳司马诸葛上官])(?P<name>[\u4e00-\u9fff]{2,4}?)(?=(?:也|还|已经|现在|目前|刚|去年|今年|上个?月)?(?:在|住|搬|从|入职|加入|跳槽|是|叫|喜欢|讨厌|养|做|当|担任|的))'
)

ZH_SELF = lazy_compile(r'^我(?:们)?')

# "我妈妈住在上海" is about the mother: a kin word after 我 is the subject, unless it is named
# ("我老婆叫李娜" states my partner)
ZH_KIN_SUBJECT = lazy_compile(
    r'^我的?(?P<k>妻子|太太|老婆|老公|丈夫|爱人|男朋友|女朋友|对象|儿子|女儿|爸爸|妈妈|父亲|母亲|哥哥|姐姐|'
    r'弟弟|妹妹|爷爷|奶奶|外公|外婆|老板|朋友|同事|室友|邻居)(?!是|叫|的名字)'
)

ZH_STOP_NAMES = frozenset(
    [
        '我们',
        '你们',
        '他们',
        '她们',
        '大家',
        '公司',
        '团队',
        '回答',
        '回复',
        '以后',
        '现在',
        '今天',
        '明天',
        '这个',
        '那个',
        '这里',
        '那里',
        '以前',
        '之前',
        '后来',
        '最近',
        '目前',
        '已经',
        '项目',
        '代码',
        '输出',
        '文档',
    ]
)

PLACE_EN = r"(?P<v>[A-Z][\w.'-]*(?:[ -](?:[A-Z][\w.'-]*|de|del|la|le|am|upon|on)\b)*)"

ORG_EN = r"(?P<v>[A-Z0-9][\w&.'+-]*(?: (?:[A-Z0-9&][\w&.'+-]*|of|and|de))*)"

HAN_VALUE = r'(?P<v>[\u4e00-\u9fffA-Za-z0-9·]{1,16}?)'

ZH_END = r'(?=了|啦|呢|的|去了|工作|上班|$|[，,。.！!；;\s]|(?:做|当|担任|实习|任职))'

EN_TRAIL = lazy_compile(
    rf'\s+(?:{TIME_EN}|now|too|as well|again|anymore|any more|instead|for good)$', re.I
)

ZH_TRAIL = lazy_compile(rf'(?:{TIME_ZH}|了|啦|呢|吧|的|去|来|了吗)+$')

ADV = (
    r'(?:(?i:now|just|recently|finally|also|still|currently|actually|officially|then|have|'
    r'has|used to|had|been|am|is|are|was|were|will|soon|already) )*'
)

# "Don't call me Liz", "别再叫我小王": a name no longer wanted
NAME_NEG = lazy_compile(
    r"(?i)(?:\b(?:don't|do not|stop|never|no longer|quit)\s+$|(?:别|不要|不用)再?$)"
)

# a negation in front of a slot's verb: "I no longer work at Acme", "I don't live in Paris"
NOT_EN = r"(?P<n>(?i:no longer|don't|do not|doesn't|does not|not|never) )?"

JOBS = (
    r'engineer|developer|designer|manager|analyst|scientist|teacher|nurse|doctor|lawyer|'
    r'consultant|architect|accountant|researcher|professor|programmer|director|intern|officer|'
    r'specialist|administrator|technician|chef|pilot|founder|ceo|cto|lead|owner|writer|'
    r'journalist|editor|student|lecturer|coordinator|recruiter|salesperson|therapist|'
    r'pharmacist|dentist|surgeon|librarian|assistant|product manager|pm|vp'
)

PAST_EN = lazy_compile(
    r'(?i)\bused to\b|\b(?:previously|formerly|back then|before that|at the time)\b|'
    r'^(?:was|were) (?:at|in|a|an|the|working|living|based)\b|^(?:worked|lived|liked|loved|'
    r'enjoyed|resided|had)\b'
)

PRESENT_PERFECT = lazy_compile(r"(?i)^(?:have|has|'ve) (?:been )?(?:lived|worked|living|working)")

PAST_ZH = lazy_compile(r'以前|之前|曾经|原来|过去|当年|那时|从前|上一份')

SLOTS_EN: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (slot, lazy_compile(pattern))
    for slot, pattern in (
        (
            'lives_in',
            rf'^{ADV}{NOT_EN}(?:(?i:live|lives|living|lived|moved|moving|move|relocated|relocating|'
            r'settled|reside|resides|resided)(?: back| over| out| house)?'
            r"(?: from (?:the )?(?P<r>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)*))? (?:in|to) |"
            rf'(?i:based|located) in )(?:the )?{PLACE_EN}',
        ),
        (
            'works_at',
            rf'^{ADV}{NOT_EN}(?:(?i:work(?:s|ed|ing)?(?: (?:now|currently|full-time|part-time))? '
            r'(?:at|for)|join(?:ed|s|ing)?|start(?:ed|s|ing)? (?:(?:a|my) new job |a job |'
            r'working |work )?(?:at|with|for)|(?:got )?hired (?:by|at)|got a (?:new )?job (?:at|'
            r'with)|took a job (?:at|with)|accepted (?:an|the) offer from|employed (?:at|by)|'
            r'(?:left|quit) (?:my job at )?(?P<r>[A-Z]\S*) (?:for|to join))) ' + ORG_EN,
        ),
        (
            'works_at',
            rf'(?i:\b(?:a|an) (?:[\w-]+ ){{0,3}}(?:{JOBS})) (?:at|for|with) ' + ORG_EN,
        ),
        (
            # "I quit Initech", "I left my job at Acme": the employer is over, no new one named
            'works_at',
            rf'^{ADV}(?P<n>(?i:quit|left) (?i:my (?:job|position|role) (?:at|with) )|'
            r'(?i:quit) |(?i:no longer) (?i:at|with) )' + ORG_EN,
        ),
        (
            # "I left Google", "I left Acme last year": the employer is over; "I left Google
            # early today" tells of a day, not of the job
            'works_at',
            rf'^{ADV}(?P<n>(?i:left) )'
            + ORG_EN
            + r'(?=\s*(?:$|[.!;]|(?i:for good|after \d+ years?|last (?:month|year|week)|'
            r'in \d{4}|(?:a|one|two|three|\d+) (?:months?|years?|weeks?) ago)\b))',
        ),
        (
            'title',
            r'(?i)(?:\b(?:work|works|worked|working|job|hired|employed|started|joined|serve|'
            r'serves|served|promoted)\b.*?\bas|\bpromoted to) (?:a |an |the |our )?'
            r'(?P<v>[\w -]{2,40}?)(?= at\b| for\b| in\b| with\b| since\b| from\b| now\b|$)',
        ),
        (
            'title',
            rf'(?i)^(?:am|is|are|was|were|{ADV}) ?(?:now |currently |still )?(?:a|an) '
            rf'(?P<v>(?:[\w-]+ ){{0,3}}(?:{JOBS}))\b',
        ),
        (
            'name',
            r"(?i:\bmy name is|\bmy name's|\bcall(?:ing)? me|\bi'm called|\bi am called|\bgo by|"
            r'\baddress me as|\brefer to me as|'
            # "I'd rather be called Beth", "I'd prefer to be called Beth"
            r'\b(?:rather|prefer|like|want|love) (?:to )?(?:be|being) called) '
            r"(?P<v>[A-Za-z\u4e00-\u9fff][\w'-]*(?: [A-Z][\w'-]*){0,2})",
        ),
        (
            'partner',
            r"(?i:\bmy (?:wife|husband|partner|spouse|girlfriend|boyfriend|fianc[eé]e?)(?:'s name)?"
            r"(?: is| is called|'s|,)?|\b(?:am|is|got|are) (?:now )?(?:married|engaged) to) "
            r"(?P<v>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?)",
        ),
    )
)

# unanchored English slot patterns (a search tries them at every position of a clause) and
# every word, lower-cased, a match of each holds: an ASCII clause without any is not searched.
# Not the anchored ones (they fail at the clause's start) nor "a <job> at", whose ~40 job words
# took longer to look for than the search (9.5 -> 24.9 ms per 2,000 LoCoMo writes)
SLOT_WORDS_EN: dict[re.Pattern[str], tuple[str, ...]] = {
    SLOTS_EN[5][1]: (
        'work', 'job', 'hired', 'employed', 'started', 'joined', 'serve', 'promoted',
    ),
    SLOTS_EN[7][1]: ('name', 'call', 'go by', 'address me', 'refer to me'),
    SLOTS_EN[8][1]: (
        'wife', 'husband', 'partner', 'spouse', 'girlfriend', 'boyfriend', 'fianc', 'married',
        'engaged',
    ),
}  # fmt: skip

# bounded by non-letters, not \b: "用Vim写代码" has no word boundary around "Vim"
EDITOR = lazy_compile(
    r'(?i)(?<![A-Za-z0-9])(?P<v>neovim|nvim|vim|emacs|vs ?code|visual studio code|'
    r'sublime(?: text)?|intellij|pycharm|webstorm|cursor|zed|helix|nano|atom|notepad\+\+)'
    r'(?![A-Za-z0-9])'
)

EDITOR_CUE = lazy_compile(
    r'(?i)\b(?:use|uses|using|switched|switch|moved|changed|prefer|on|editor|ide|code in|'
    r'write code in|ditched|dropped|replaced|gave up|abandoned)\b|用|换成|改用|编辑器'
)

SLOTS_ZH: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (slot, lazy_compile(pattern))
    for slot, pattern in (
        (
            'lives_in',
            r'(?:从(?P<r>[\u4e00-\u9fff]{2,8}?))?(?:住在|搬到了?|搬去了?|搬回了?|搬家到|定居在|定居于|'
            r'移居到?|住到了?|落户|常驻|(?<!老)家住|(?<!老)家在)' + HAN_VALUE + ZH_END,
        ),
        (
            'works_at',
            r'(?:从(?P<r>[\u4e00-\u9fffA-Za-z]{2,10}?))?(?:跳槽到了?|跳槽去了?|跳到了?|入职了?|加入了?|'
            r'转到了?)' + HAN_VALUE + ZH_END,
        ),
        (
            # "我已经离开腾讯了", "我从腾讯离职了": the employer is over, no new one named
            'works_at',
            r'^(?:(?P<n>离开了?|辞职离开了?)'
            + HAN_VALUE
            + r'(?=了|$|[，,。.！!])|从'
            + HAN_VALUE.replace('?P<v>', '?P<w>')
            + r'(?P<n2>离职|辞职))',
        ),
        (
            'works_at',
            r'^(?:现在|目前|也|还|一直)?(?P<n>不再|已经不|不)?在'
            + HAN_VALUE
            + r'(?=工作|上班|任职|实习|做|当|担任|干)',
        ),
        (
            # a change of employer: "我换到阿里巴巴工作了", "我现在去字节上班了"; not a day's
            # errand ("我去公司上班", "我到医院做检查")
            'works_at',
            r'^(?:现在|目前|已经)?(?:(?:换|调|转|改)到了?|改在|去(?=[^，,。]*(?:工作|上班|任职)了))'
            r'(?!公司|单位|办公室|新公司|这|那)' + HAN_VALUE + r'(?=工作|上班|任职)',
        ),
        (
            'works_at',
            r'^(?:现在|目前|也|还|一直)?是(?P<v>[\u4e00-\u9fffA-Za-z]{2,10}?)的(?=[\u4e00-\u9fff]{0,6}'
            r'(?:工程师|经理|设计师|医生|老师|律师|会计|分析师|研究员|程序员|架构师|总监|主管|员工|'
            r'护士|记者|编辑|顾问|销售|厨师|司机|实习生|科学家|教授|运营|产品|开发|测试|专员|助理))',
        ),
        (
            'lives_in',
            r'^(?:现在|目前|也|还|一直|全家)?(?P<n>不再|已经不|不)?在'
            + HAN_VALUE
            + r'(?=住|生活|定居|居住|安家|落户)',
        ),
        (
            'title',
            r'(?:做了?|当了?|担任|是一名|是一个|是个|是|成为了?一?名?|转行当了?|转行做了?|'
            r'(?:升职|晋升|提拔|升)(?:成|为)了?)'
            r'(?:[\u4e00-\u9fffA-Za-z]{2,10}?的)?(?P<v>[\u4e00-\u9fffA-Za-z]{0,6}'
            r'(?:工程师|经理|设计师|医生|老师|教师|律师|会计|分析师|研究员|程序员|架构师|总监|主管|'
            r'学生|护士|记者|编辑|顾问|销售|厨师|司机|实习生|科学家|教授|总裁|创始人|运营|产品|'
            r'开发|测试|专员|助理|秘书|作家|翻译))',
        ),
        (
            'name',
            # "称呼改为王总", "改叫王总": the way to address the speaker, changed
            r'(?:^我叫|我的名字(?:是|叫)|叫我|称呼我(?:为)?|^(?:以后|就)?改叫|'
            r'^(?:我的)?称呼(?:改为|改成|换成|就是|是))\s*(?P<v>[^\s,，。！？!?、;；:：了]{1,12})',
        ),
        (
            'partner',
            r'(?:我的?(?:老婆|妻子|老公|丈夫|爱人|女朋友|男朋友|对象|未婚妻|未婚夫)(?:是|叫))'
            r'(?P<v>[\u4e00-\u9fffA-Za-z]{1,8})',
        ),
    )
)

FORMATS = (
    ('bullet points', r'bullet(?:ed)?[ -]?(?:points?|lists?)?|bullets|numbered lists?|lists?|'
     r'要点列表|分点列表|列表|分点|要点|条目'),
    ('prose', r'prose|paragraphs?|full sentences|flowing text|段落|成段|大段文字|连贯的文字|'
     r'一段话|文字'),
    ('tables', r'tables?|表格'),
    ('plain text', r'plain text|纯文本'),
    ('markdown', r'markdown'),
)  # fmt: skip

# a Chinese format word that is about something the speaker does or likes, not about answers:
# the object of their own reading or making ("我喜欢看表格", "我喜欢做表格"), or a word that
# describes another thing ("我喜欢看段落很长的小说", "列表式的清单"). Only where the clause does not
# speak of answers or of the assistant ("你用表格整理", "用表格的形式回答" stay answer formats).
FORMAT_ANSWERS_ZH = lazy_compile(r'回答|回复|答复|输出|排版|格式|形式|你|您')
FORMAT_OWN_ACT_ZH = lazy_compile(r'(?:看|读|阅读|做|画|制作|收集|抄|背)(?:一些|很多|那些|这些)?$')
FORMAT_DESCRIBES_ZH = lazy_compile(r'^(?:式|类|型|[^，。,；;]{0,6}?的(?=[\u4e00-\u9fff]))')
# "我不喜欢写段落", "我想写列表": what the speaker writes, after a liking or a wish; "别写列表了"
# (no liking before it) stays an order to the assistant
FORMAT_OWN_WRITE_ZH = lazy_compile(r'(?:写|编写|撰写)(?:一些|很多|那些|这些)?$')
FORMAT_LIKING_ZH = lazy_compile(r'^.*?(?:喜欢|偏好|爱|想|讨厌|习惯)')
# a restriction on a format lifted: "表格的限制取消了", "取消对表格的限制" undo
# "回答里不要用表格" as "以后回答可以用表格了" does. Before the format word only answer or time
# words ("报销表格的限制" is about a form), and one verb of lifting, before the word or after
# the restriction
FORMAT_LIFT_ZH = (
    lazy_compile(
        r'^(?:以后|现在|那就|那么|那|回答|回复|里|中|对)*'
        r'(?:(?P<v>取消|解除|去掉|撤销|放开)了?对?)?(?:用|使用)?$'
    ),
    lazy_compile(
        r'^的?(?:使用)?(?:限制|禁令)(?P<v>(?:已经|就|也|都|现在)?(?:取消|解除|去掉|撤销|放开|没有?)了)?'
    ),
)
# the same in English: "The ban on tables is lifted", "Lift the ban on tables" ("the ban on
# tables in the park" is not the answers')
FORMAT_LIFT_EN = (
    lazy_compile(
        r'(?i)^\W*(?:(?:ok|okay|so|then|now|please|you can)\W+)*(?:(?P<v>lift|remove|drop|end)\s+)?'
        r'(?:the|your|my|that)\s+(?:ban|restrictions?|rule|limits?)\s+(?:on|against)\s+(?:using\s+)?$'
    ),
    lazy_compile(
        r'(?i)^(?:\s+in\s+(?:your\s+|the\s+)?(?:answers|replies|responses))?(?:\s+(?P<v>(?:is|are|'
        r"has been|have been|'s)\s+(?:now\s+)?(?:lifted|removed|dropped|over|gone)\b)|"
        r'(?=\s*(?:[,.;!?]|$|please\b|now\b|again\b)))'
    ),
)
# a Chinese rule's restriction lifted, "emoji的限制取消了", "取消对emoji的限制": a permission of
# its object, as "以后可以用emoji了" is (a format word is `FORMAT_LIFT_ZH`'s)
RULE_LIFT_ZH = lazy_compile(
    r'^(?:以后|现在|那就|那么|那)*(?:(?P<v>取消|解除|去掉|撤销|放开)了?对)?(?:用|使用)?'
    r'(?P<x>[A-Za-z][A-Za-z0-9 ]{0,15}|[\u4e00-\u9fff]{1,6}?)的?(?:使用)?(?:限制|禁令)'
    r'(?P<w>(?:已经|就|也|都|现在)?(?:取消|解除|去掉|撤销|放开)了)?[吧啊呢]?$'
)

# a format called a nuisance after it is named: "Bullet points are annoying", "表格看着不方便"
FORMAT_DISLIKED = lazy_compile(
    r'(?i)^\W*(?:are|is|were|get|gets)\s+(?:so |too |really |just )?(?:annoying|unnecessary|'
    r'distracting|hard to read|too much|not needed|not helpful|useless)\b|'
    r'^\W*(?:看着|看起来|读起来)?(?:不方便|太乱|很乱|不好看|没必要|不需要|太多|难读)'
)

# a value named before the one it is changed into: "把列表换成段落", "中文改为英文"
REPLACED_BY = lazy_compile(r'^\W*(?:都|全)?(?:换成|改成|改为|换为|变成|替换成|换回)')
# a value named and then dropped: "英文不要了", "列表就不用了"
DROPPED_AFTER = lazy_compile(r'^(?:就|也)?(?:不要|不用|别用|算了)了?吧?\W*$')

FORMAT_RE = [
    (name, lazy_compile(rf'(?i)(?:\b|(?<=[\u4e00-\u9fff]))(?:{p})')) for name, p in FORMATS
]

FORMAT_CUE = lazy_compile(
    r'(?i)\b(?:prefer|want|like|use|using|write|answer|answers|reply|replies|respond|responses|'
    r"format|give me|no more|instead of|over|rather than|stop|don't|do not|avoid|from now on|"
    r'keep|fine|okay|allowed|switch|switched|please|less|more|fewer|better|best|annoying|'
    r'unnecessary|distracting)\b|'
    # "Stick with prose", an order; "I stick to my to-do lists" is about the speaker's lists
    r"(?i:^\W*(?:(?:let'?s|please|ok|okay|so|just)\W+)*(?:stick|stay) (?:with|to)\b)|"
    r'回答|回复|输出|用|写|格式|不要|别|喜欢|偏好|不再|以后|从现在|需要|换成|改成|改为|换为|'
    r'更好|比较好|我要|要的是|^还是|反对|禁止|允许|比.{1,8}?(?:更|还)?好'
)

# "段落比列表好": the value after 比 is the worse one
COMPARED_DOWN = (lazy_compile(r'比$'), lazy_compile(r'^(?:更|还|要)?(?:好|强|清楚|合适|方便|舒服)'))

LANGS = (
    ('chinese', r'chinese|mandarin|中文|汉语|普通话'),
    ('english', r'english|英文|英语'),
    ('japanese', r'japanese|日语|日文'),
    ('german', r'german|德语'),
    ('french', r'french|法语'),
    ('spanish', r'spanish|西班牙语'),
)

_LANG_WORDS = [w for _, p in LANGS for w in p.split('|')]
_LANG_EN = '|'.join(w for w in _LANG_WORDS if w.isascii())
_LANG_ZH = '|'.join(w for w in _LANG_WORDS if not w.isascii())

# a turn about the answers the user wants: a language named in it is the answers' language
ANSWER_CUE = lazy_compile(
    r'(?i)\b(?:answers?|answering|reply|replies|replying|respond|responses?|write (?:to me|back)|'
    r"(?:speak|talk) to (?:me|us)|let'?s (?:switch|speak|talk|use|stick|continue)|"
    r'(?:rather|prefer|want|like|need) you (?:to )?(?:speak|spoke|talk|talked))\b|'
    rf'\bswitch (?:back )?to (?:{_LANG_EN})\W*(?:please|now|again)?\W*$|'
    # "English, please, not Spanish": a language asked for on its own
    rf'(?:^|[,.;!:]\s*)(?:{_LANG_EN})\W+please\b|'
    rf'^\W*(?:{_LANG_ZH})\W+(?:谢谢|麻烦了|拜托了)|'
    # an order to change the language itself, standing alone: "Use Spanish instead of English",
    # "Switch to Spanish, not English", "No more English" ("use English names" is no such order).
    # "Stick with Spanish" orders Spanish whatever was current: it confirms Spanish and changes
    # English; "I stick with my friends" has a subject and no language, so it orders nothing
    r'(?:^|[,.;!:]\s*)(?:(?:please|ok|okay|so|now|just|then)\W+)*(?:use|switch (?:back )?to|'
    rf'change to|go back to|stick (?:to|with)|stay with|keep using|no more|stop using)\s+'
    rf'(?:{_LANG_EN})\b'
    r'(?!\s+(?!(?:now|please|instead|only|again|from|then|here|too|for|and|not|rather|over)\b)\w)|'
    r'回答|回复|答复|交流|沟通|(?:跟|和|对)我(?:说|讲|聊)|换回|切换|请说|全部用|都用|一律用|就好|就行|'
    # the assistant using a language, liked: "我更喜欢你用中文". Without 你 ("我比较喜欢中文")
    # it is a taste for the language, as "I like French" is: said as often of a language one
    # learns or reads ("法语和中文我比较喜欢中文"), and a request names the answers, the
    # assistant or orders the language alone ("中文吧", `LANG_ALONE_ZH`). A wrong switch
    # changes every later answer; a missed request is repaired by the next "请用中文"
    r'(?:让|要|希望|请|喜欢)你(?:用|说|讲)'
)

# a Chinese clause whose only object is a language, said to the assistant ("请用中文",
# "改成中文吧", "别用英文了", "以后都说中文吧", "我要中文", "英文不要了"): the language of the
# answers, with no answer word needed. Another subject ("我用英文写论文", "我在学英语",
# "他说英文") or another object after the language is no request.
_ZH_LEADS = (
    r'(?:其实|不过|那就|那么|那|嗯|好吧|算了|以后|今后|之后|从现在(?:起|开始)|现在|还是|'
    r'请你?|麻烦你?|你|咱们|我们|就|都|全部|一律|直接|再)*'
)
_ZH_ASKED = (
    r'(?:吧|了|啊|呀|哦|嘛|好了|就行|就好|就可以了?|可以吗|行吗|好吗|谢谢|'
    r'(?:会|就)?(?:更好|比较好|最好|好一点|好些))'
)
LANG_ALONE_ZH = lazy_compile(
    rf'^{_ZH_LEADS}(?:'
    r'(?:别再?|不要再?|不用再?|不必再?|换|改)?'
    r'(?:用|说|讲|改成|换成|改用|换用|切换到|切换成|切到|换回|改回|回到|用回|换)'
    r'|我?(?:还是|就)?不?(?:要|想要|需要))'
    rf'(?:{_LANG_ZH})(?:聊|聊天|说话|讲话|对话|答)?{_ZH_ASKED}*$|'
    rf'^{_ZH_LEADS}(?:{_LANG_ZH})(?:就|也)?(?:不要|不用|别用|算了)了?吧?$|'
    # the language alone, asked for with a lead or a particle: "以后中文", "中文吧", "还是中文好"
    rf'^(?:{_ZH_LEADS[:-1]}+(?:{_LANG_ZH})(?:好)?{_ZH_ASKED}*|(?:{_LANG_ZH}){_ZH_ASKED}+)$'
)

# a clause about someone else's words: "My French teacher answers in French"
OTHER_SPEAKER = lazy_compile(
    r'(?i)^(?:my|our|his|her|their) (?!answers?\b|repl(?:y|ies)\b|responses?\b)'
)

# a language named as the one to use: "in/to/use English", "English replies", "用中文", "改成英文"
LANG_WORD = lazy_compile(
    rf'(?i)(?:\b(?:in|to|into|use|using|prefer|want|of|than|not|no|more|(?:stick|stay) with)\s+'
    rf'(?P<en>{_LANG_EN})\b|'
    rf'\b(?P<lead>{_LANG_EN})(?=\s+(?:answers?|replies|responses?)\b)|'
    rf'\b(?:rather|prefer|want|like|need) you (?:to )?(?:speak|spoke|talk|talked) (?:in )?'
    rf'(?P<you>{_LANG_EN})\b)|'
    rf'^(?P<bare>{_LANG_EN})(?=$|\W+please\W*$)|'
    rf'(?P<zh>{_LANG_ZH})'
)

ATTR_EN = lazy_compile(
    r"(?i)^(?:my|(?P<who>[A-Z][a-z'-]+)'s|(?:the )?(?=(?:lucky|favou?rite)\b))\s*"
    r'(?P<k>(?:[\w-]+ ){0,2}?(?:name|number|colou?r|food|drink|movie|film|book|song|band|game|'
    r'sport|team|city|place|hometown|birthday|address|email|e-mail|phone|phone number|'
    r'mobile|job|title|role|position|employer|company|boss|manager|editor|ide|shell|'
    r'laptop|car|budget|goal|timezone|time zone|wife|husband|partner|girlfriend|boyfriend|'
    r"age|salary|rent|size|height|weight|os|browser|language))(?: is| was|'s| are)"
    r'(?P<neg> no longer| not| not anymore)? (?P<v>.+)$'
)

ATTR_ZH = lazy_compile(
    r'^(?:我的|的|(?P<who>[\u4e00-\u9fff]{2,4})的)?(?:新的?|现在的|目前的)?(?P<k>(?:最喜欢的)?[\u4e00-\u9fff]{0,4}?'
    r'(?:名字|称呼|数字|号码|电话|手机号?|邮箱|地址|生日|职位|公司|老板|领导|老婆|妻子|太太|老公|丈夫|'
    r'家乡|老家|年龄|预算|目标|编辑器|颜色|城市|食物|电影|歌|书|球队|车))(?:现在|目前|如今|已经)?'
    r'(?P<neg>不再是|已经不是|不是)?(?P<cop>是|叫|为|改为|改成|换成|变成|变为)?(?P<v>.+)$'
)

# "出差，住在国贸附近", "住在外滩附近的酒店": a stay on a trip, not a home
TRIP_ZH = lazy_compile(r'出差|旅游|旅行|度假')
HOTEL_ZH = lazy_compile(r'酒店|宾馆|民宿')

# an attribute stated without 是/叫/为 names a place with 在 ("我老家在长沙"), or a value that
# is not Chinese words ("我的电话 138…"); "公司在望京" and "公司规定…" say something about the
# company, not which company it is
ATTR_ZH_PLACES = frozenset({'老家', '家乡', '地址', '城市'})

ATTR_SLOT = {
    'job': 'title',
    'title': 'title',
    'role': 'title',
    'position': 'title',
    'employer': 'works_at',
    'company': 'works_at',
    'editor': 'editor',
    'ide': 'editor',
    'wife': 'partner',
    'husband': 'partner',
    'partner': 'partner',
    'girlfriend': 'partner',
    'boyfriend': 'partner',
    'name': 'name',
    'email': 'email',
    'e-mail': 'email',
    'phone': 'phone',
    'phone number': 'phone',
    'mobile': 'phone',
    '名字': 'name',
    '称呼': 'name',
    '职位': 'title',
    '公司': 'works_at',
    '老婆': 'partner',
    '妻子': 'partner',
    '太太': 'partner',
    '老公': 'partner',
    '丈夫': 'partner',
    '编辑器': 'editor',
    '邮箱': 'email',
    '电话': 'phone',
    '手机': 'phone',
    '手机号': 'phone',
}

NEG_EN = (
    r"(?P<neg>(?i:do not|don't|does not|doesn't|did not|didn't|never|no longer|not|am not|"
    r"'m not|is not|isn't|can't|cannot) (?:really |even |actually )?)?"
)

LIKES_EN = lazy_compile(
    rf'^{ADV}{NEG_EN}(?P<verb>(?i:like|likes|liked|love|loves|loved|enjoy|enjoys|enjoyed|'
    r'adore|adores|hate|hates|hated|dislike|dislikes|disliked|stand|into|fond of|a fan of|'
    r'prefer|prefers|preferred|given up|gave up|give up)) (?P<v>.+)$'
)

# "I've given up coffee" ends a like as "I don't like coffee" does
NEGATIVE_VERBS = frozenset(
    {'hate', 'hates', 'hated', 'dislike', 'dislikes', 'disliked', 'given up', 'gave up', 'give up'}
)

RETRACT_EN = lazy_compile(r'(?i)\s+(?:over|rather than|instead of|more than|to)\s+(?P<r>.+)$')

HOBBY_EN = lazy_compile(
    r'(?i)^my (?:hobby|hobbies|interests?|passions?|pastimes?) (?:is|are|include|includes) '
    r'(?P<v>.+)$'
)

PET_EN = lazy_compile(
    rf'^{ADV}{NEG_EN}(?i:have|has|own|owns|got|adopted|rescued|keep|keeps)(?: got)? '
    r'(?:a |an |one |two |three |\d+ |any |some )?(?:new |little |big |pet )?'
    r'(?P<v>(?i:dog|cat|puppy|kitten|parrot|rabbit|hamster|fish|turtle|horse|snake|bird)s?)\b'
)

# a skill named by a proper noun: "I'm good at Go", "I write Python at work", "I know Rust"
SKILL_EN = lazy_compile(
    rf'^{ADV}{NEG_EN}(?i:am good at|\'m good at|am great at|\'m great at|am skilled in|know|'
    r'write|code in|program in|am experienced (?:in|with)|\'m experienced (?:in|with)|'
    r'am an expert in|\'m an expert in|work with|use) (?P<v>[A-Z][\w+#.-]*)(?=\s|$|[,.!])'
)
LANGUAGE_EN = lazy_compile(
    rf'^{ADV}{NEG_EN}(?i:speak|speaks|can speak|am fluent in|\'m fluent in|am learning|'
    r"'m learning|learned|learnt) (?P<v>[A-Z][a-z]+)\b"
)

HABIT_EN = lazy_compile(
    rf'^{ADV}(?:(?i:usually|always|often|mostly|sometimes|only|still) )*{NEG_EN}'
    r'(?P<verb>(?i:drink|drinks|eat|eats|smoke|smokes|play|plays|watch|watches|read|reads|'
    r'use|uses|run|runs|cook|cooks|practice|practise|practices|go|goes)) (?P<v>.+)$'
)

LIKES_ZH = lazy_compile(
    r'^(?:很|也|还|最|特别|比较|非常|一直|真的|超|挺|现在|开始|都|平时)*'
    r'(?P<neg>不再|不太|不怎么|没那么|没有那么|不|没有?)?(?:很|太)?'
    r'(?P<verb>喜欢|爱上了?|爱|热爱|喜爱|钟爱|迷上了?|讨厌|偏好|偏爱|更喜欢)(?P<v>.+)$'
)

HOBBY_ZH = lazy_compile(r'^(?:我的)?(?:爱好|兴趣|兴趣爱好)(?:是|有|包括)(?P<v>.+)$')

PET_ZH = lazy_compile(
    r'^(?P<neg>不再|没有?|已经不)?(?:养了?|养着|有)(?:一|两|三|几|\d)?(?:只|条|匹|个)?'
    r'(?P<v>猫|狗|小猫|小狗|鱼|鸟|兔子|仓鼠|乌龟|鹦鹉)'
)

LANGUAGE_ZH = lazy_compile(
    r'^(?:也|还|能)?(?P<neg>不)?(?:会说|会讲|能说|在学)(?P<v>[\u4e00-\u9fff]{1,4}?(?:语|文|话))|'
    r'^(?P<w>[\u4e00-\u9fff]{1,4}?(?:语|文))(?:也|还)?(?:说得|讲得|很流利|挺流利)'
)

HABIT_ZH = lazy_compile(
    r'^(?:每天|经常|平时|常常|总是|一直|现在|都|也|还)*(?P<neg>不再|已经不|不|戒了)?'
    r'(?P<verb>喝|吃|抽|玩|看|跑)(?P<v>[\u4e00-\u9fffA-Za-z]{1,8})'
)

LEAD_VERB_ZH = lazy_compile(r'^(?:喝|吃|玩|看|听|去|打|做|养|用|学)(?=[\u4e00-\u9fff])')

LEAD_VERB_EN = lazy_compile(
    r'(?i)^(?:to |playing |going |doing |watching |eating |drinking |having |reading )+'
)

VALUE_TAIL_EN = lazy_compile(
    r'(?i)\s+(?:anymore|any more|either|too|as well|very much|so much|a lot|at all|now|'
    r'every (?:morning|day|night|evening|week|weekend)|each (?:morning|day|night)|daily|'
    r'in the (?:morning|evening|afternoon)|at night|on weekends|'
    r'these days|nowadays|lately|in your answers|in answers|in replies|in responses)$'
)


NEG_CUE = lazy_compile(
    r"(?i)(?:\b(?:no more|no|not|don't|do not|never|no longer|stop|stop using|avoid|without|"
    r'over|instead of|rather than|less|no need for|no need to)\b|'
    r'不要|别|不再|不用|不需要|无需|而不是|少用|不想|代替|取代|不喜欢|讨厌|受不了)'
    r'\W*(?:\w+\W+){0,3}\w*$'
)

KIN_POSSESSOR = lazy_compile(
    r'(?i)\bmy (?P<k>wife|husband|partner|girlfriend|boyfriend|son|daughter|mother|mom|mum|'
    r"father|dad|brother|sister|boss|manager|friend|colleague)(?:'s|\s+\w+'s)|"
    r'我(?:的)?(?P<z>妻子|老婆|老公|丈夫|爱人|儿子|女儿|爸爸|妈妈|父亲|母亲|哥哥|姐姐|弟弟|妹妹|老板|朋友|同事)的'
)

# the editor after one of these is the one in use: "moved from Vim to Emacs", "以前用X，现在换成Y"
EDITOR_TO = lazy_compile(r'(?i)\b(?:to|now|into|for)\s+$|换成|改用|现在用|换到')
# attribute words that make another slot of the same kind: a work email is not the email
QUALIFIERS = frozenset({'work', 'personal', 'home', 'office', 'business', 'school', 'private'})
# how long answers are, and which units: one value each, canonical English names
CHOICES = tuple(
    (
        slot,
        tuple(
            (name, lazy_compile(rf'(?i)(?:\b|(?<=[\u4e00-\u9fff]))(?:{p})')) for name, p in values
        ),
    )
    for slot, values in (
        (
            'answer_length',
            (
                ('short', r'short|brief|concise|terse|简短|简洁|简单|短一点|短一些|短点|太短|更短'),
                (
                    'detailed',
                    r'detailed|(?<!no )long(?:er)?|thorough|in-depth|(?:in|into|more) detail|'
                    r'详细|具体|长一点|长一些|长点|太长|更长',
                ),
            ),
        ),
        (
            'unit:distance',
            (('miles', r'miles?|英里'), ('kilometres', r'kilomet(?:re|er)s?|km|公里|千米')),
        ),
        (
            'unit:weight',
            (('pounds', r'pounds?|lbs?|磅'), ('kilograms', r'kilo(?:gram)?s?\b|kg\b|公斤|千克')),
        ),
        (
            'unit:temperature',
            (('celsius', r'celsius|centigrade|摄氏'), ('fahrenheit', r'fahrenheit|华氏')),
        ),
    )
)
CHOSEN_SLOTS = frozenset(
    {'answer_format', 'answer_language', 'editor', 'answer_length'} | {s for s, _ in CHOICES}
)
# a length word is about answers only beside one of these; a unit only beside a choice of units
CHOICE_CUES = {
    'answer_length': lazy_compile(
        r'(?i)\b(?:answers?|repl(?:y|ies)|responses?|explanations?|explain|summar(?:y|ies)|'
        r'please be|be more|be less)\b|'
        r'回答|回复|解释|说明|以后|说得|讲得|简单说|说简单|说详细|讲详细|不用那么|别那么|不要那么|'
        # "不要再简短了，详细点": a length refused on its own, with no topic before it
        r'^(?:不要|别)(?:再|太)'
    ),
    'unit': lazy_compile(
        r'(?i)\b(?:prefer|use|using|units?|measurements?|instead of|rather|give me|in|switch|'
        r'switched|change|changed|convert|from now on|metric|imperial|please|no more|instead|'
        r'like|want)\b|'
        r"(?i:^\W*(?:(?:let'?s|please|ok|okay|so|just)\W+)*(?:stick|stay) (?:with|to)\b)|"
        r'用|单位|换算|改成|换成|改为'
    ),
}

# events that change a slot without naming its new value ("I got promoted", "我搬家了"): such a
# clause belongs with the clause beside it that names the value
SLOT_CHANGES = (
    ('title', lazy_compile(r'(?i)\b(?:promoted|promotion|demoted)\b|升职|晋升|提拔|降职')),
    (
        'works_at',
        lazy_compile(
            r'(?i)\b(?:changed|switched|new|quit|left) (?:my )?(?:jobs?|employers?|companies)\b|'
            r'跳槽了?$|换(?:了)?工作|辞职|离职'
        ),
    ),
    ('lives_in', lazy_compile(r'(?i)\b(?:moved|relocated|moved house)$|搬家了?$|搬走了')),
)

# an explicit correction naming both values: "不是Vim而是Emacs", "把小王改成老王"
CORRECTION = lazy_compile(
    r'不是(?P<o2>[^，,。；;]+?)而是(?P<n2>[^，,。；;]+)'
    r'|把(?P<o3>[^，,。；;]+?)(?:改成|改为|换成)(?P<n3>[^，,。；;]+)'
)
# the same over two clauses: "应该是段落，不是列表", "不是北京，是上海"
CORRECTION_PAIR = lazy_compile(
    r'^(?:[^，,。；;]{0,8}?(?:应该|其实)|而)?是(?P<n2>[^，,。；;]+?)[，,]\s*(?:而)?不是(?P<o2>[^，,。；;]+)$'
    r'|^不是(?P<o3>[^，,。；;]+?)[，,]\s*(?:而|应该|其实)?是(?P<n3>[^，,。；;]+)$'
)

# a rule for the assistant, forbidden or allowed: "回答里不要用emoji" / "以后回答可以用emoji了",
# "不要在代码里加注释" / "代码里可以加注释了"; the topic before the modal and the action after it
# name the rule, so a permission reverses the prohibition of the same action
RULE_ZH = lazy_compile(
    r'^(?P<t>[\u4e00-\u9fffA-Za-z0-9]{0,8}?)'
    r'(?:(?P<neg>不要再?|别再?|不许|禁止|不准|不用再?|不能再?)|(?P<pos>可以|能够?|允许|准许))'
    r'(?P<a>[\u4e00-\u9fffA-Za-z0-9 ]{2,16})$'
)
# "别担心", "不要客气": a feeling the speaker waves away is a passing remark, not a rule for the
# assistant, which names something to do or use
RULE_FEELING = lazy_compile(
    r'^(?:担心|着急|急|客气|难过|伤心|生气|害怕|怕|紧张|介意|在意|慌|灰心|多想|见外)'
)
# what the topic and the action lose to name the same rule in both: time words, 在…里, 了/吧
RULE_NOISE = lazy_compile(
    rf'^(?:{TIME_ZH}|都|也|还|再|你|在)+|(?:里|中|上|里面|当中)$|(?:了|吧|啊|呢|的)+$'
)
RULE_LOCATIVE = lazy_compile(
    r'^在(?P<t>[\u4e00-\u9fffA-Za-z0-9]{1,8}?)(?:里面|当中|里|中|上)(?P<a>.+)$'
)
