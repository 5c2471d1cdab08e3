"""Capture's vocabulary: the salience markers, the question shapes and the
per-kind patterns, in English and Chinese. Data only; `recall.write.capture` applies them."""

from __future__ import annotations

import re

from core.lazy_re import lazy_compile

# things a person has, keeps or looks after: "I own a Tesla", "我养了一只猫"
# the object of a possession is counted or named: "a dog", "two kids", "a Tesla", "40 servers"
_OWNED = (
    r'(?= (?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|several|about|around|over|'
    r'\d+|(?-i:[A-Z]))\b)'
    r'(?! (?:a |an |one )?(?:question|problem|issue|idea|meeting|minute|moment|second|bug|error|'
    r'doubt|clue|look|feeling|headache|call|chance|bit|lot|few|word)s?\b)'
)
_POSSESS_EN = (
    r"\bi(?: also| still| just| finally)?(?:'ve got| (?:have|have got|own|drive|ride|keep|bought|"
    r'adopted|rescued|got))\b' + _OWNED + r'|\bwe (?:have|own|run|keep)\b' + _OWNED
)
_POSSESS_ZH = (
    r'我(?:们公司|们团队|们家|家|手上|手里)?(?:也|还|一共|总共)?(?:养了|养着|开(?:一辆|的是|着)|'
    r'买了|有(?=[一二两三四五六七八九十几百千万\d]+\s*[台辆只条个张套间位部块])|'
    r'领养了|收养了)|我(?:刚刚?|最近|终于)(?:养了|领养了|收养了|买了)|我在.{1,12}(?:有|买了)'
)
# a job, a school, a home and moves between them
_LIFE_EN = (
    r'\bi(?: just| recently| finally| also)? (?:was hired|got hired|got a job|relocated|grew up|'
    r'study|studied|graduated|retired|live|lived|was born|teach|taught|commute)\b|'
    r'\bi(?: just| recently| finally| also)? (?:started (?:a new job|a job|working|at|as|my new)|'
    r'(?:joined|left|quit|was at|am at) (?-i:[A-Z])|(?:left|quit) (?:my job|the company)|'
    r'moved (?:to|from|back|abroad|house|in with|out)|work(?:ed)? (?:at|for|in|as|remotely|'
    r'from home|part-time|full-time))|'
    r"\bi(?:'m| am) (?:originally )?from\b|\bi(?:'m| am) (?:currently |now )?based\b|"
    r'\bwe (?:relocated|moved)\b|\bi (?:finally |just )?(?:got|accepted|took) (?:the|an|a) '
    r'(?:job )?offer (?:from|at)\b|\bi(?:\'m| am) (?:learning|studying) (?-i:[A-Z])'
)
_LIFE_ZH = (
    r'入职|跳槽|离职|辞职|加入了|搬到|搬去|搬回|我(?:最近|现在|正在|一直)?在学(?!校)|我(?:现在|目前|已经|去年|今年|刚刚?)?(?:搬到|搬去|搬回|住在|住|'
    r'在.{1,12}(?:工作|上班|上学|读书|读研|读博|实习|长大|做))|老家|长大|我来自|毕业于|在读'
)
_DIET = (
    r'vegetarian|vegan|pescatarian|allergic|allergy|intolerant|gluten|kosher|halal|'
    r"\bi (?:only |never |don't |do not )?(?:eat|drink)\b|"
    r'吃素|素食|过敏|不耐受|不吃|不喝|忌口|戒了'
)
# relatives, partners, bosses: "my boss", "我老板", "I report to"
_KIN_EN = (
    r'wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|son|daughter|kids?|children|child|'
    r'mother|mom|mum|father|dad|parents?|brother|sister|siblings?|grandmother|grandfather|'
    r'grandma|grandpa|aunt|uncle|cousin|niece|nephew|colleague|coworker|co-worker|boss|manager|'
    r'friend|roommate|flatmate|teammate|mentor|neighbou?r|dog|cat'
)
_KIN_ZH = (
    r'妻子|老婆|老公|丈夫|爱人|女朋友|男朋友|对象|未婚妻|未婚夫|儿子|女儿|孩子|爸爸|妈妈|爸|妈|父亲|'
    r'母亲|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|表哥|表姐|堂哥|同事|老板|'
    r'上司|领导|主管|经理|朋友|室友|搭档|导师'
)
RELATIONSHIP = lazy_compile(
    rf'我的?(?:{_KIN_ZH})|我向.{{1,8}}汇报|\bmy (?:{_KIN_EN})\b|\bi report to\b|'
    r'\b(?:reports to|works with|is married to|is my (?:wife|husband|boss|manager|friend|'
    r'colleague|brother|sister|son|daughter|partner))\b',
    re.IGNORECASE,
)
# corrections of the assistant, stored as a `lesson` ("回答不要用表格", "Don't use bullet points")
LESSON = lazy_compile(
    r"(?:^|[,，:：;；]\s*|\bplease\s+|\bjust\s+)(?:don'?t|do not|never|stop|quit|no more)\s+"
    r'(?!forget\b|worry\b|mind\b)\w+|'
    r'\bi (?:told you|said no|said not|said don|already said|asked you not)\b|'
    r'\byou keep\b|\bthat\'?s (?:wrong|not what)\b.*\b(?:never|don\'?t|do not)\b|'
    r'(?:^|[,，:：;；]\s*|请)(?:不要|别再?|不许|禁止|不准|停止|不用再)(?!忘|紧|客气|担心|急|着急|谢|管)|'
    r'(?:回答|回复|输出|提交信息|commit|代码|注释|文档).{0,6}(?:不要|别|不许|禁止)|'
    r'我(?:说过|讲过|告诉过你)|你又',
    re.IGNORECASE,
)
# a lesson clause that names nothing ("don't do that", "不要这样") leans on the sentence before
ANAPHORIC_LESSON = lazy_compile(
    r"^(?:please\s+)?(?:don'?t|do not|stop)\s+(?:do(?:ing)?\s+)?(?:that|this|it)\b|"
    r'^(?:不要|别)(?:再)?(?:这样|那样|这么做)',
    re.IGNORECASE,
)
# positive style instructions that follow a correction: "…，用简洁的中文" / ", use plain text"
STYLE_INSTRUCTION = lazy_compile(
    r'^(?:请|以后|改)?(?:都)?用|^(?:please\s+)?(?:use|answer|reply|respond|write|keep)\b',
    re.IGNORECASE,
)
PREFERENCE = lazy_compile(
    r'我.{0,4}(?:喜欢|爱|讨厌|偏好|偏爱|习惯|想要|最爱)|我不(?:吃|喝|用|要)|吃素|素食|'
    r'(?:回答|回复|代码|注释|输出|文档|提交信息).{0,4}(?:请|要|用)|不要用|别用|以后(?:都|请)?(?:用|回答|回复)|'
    r'我(?:现在|已经)?(?:改用|换成|换用|用|一直用|习惯用)(?!一下|你|中文问|英文问)|'
    r"\bi (?:really |also |still |do |don't |do not |never |only )?(?:prefer|like|love|enjoy|"
    r'hate|dislike|want|eat|drink)\b(?! (?:it|this|that|them|these|those|you)\b)|'
    r'\bmy favou?rite\b|\b(?:always|never|please) (?:use|reply|'
    r"answer|respond|write)\b|\bfrom now on\b|\bi'd (?:prefer|rather)\b|"
    r"\bi (?:switched|changed) to\b|\bi(?:'m| am) (?:now )?(?:on|using)\b|"
    r'\bi (?:use|used to use)\b(?! (?:it|this|that|them|these|those)\b)|'
    r'\bvegetarian\b|\bvegan\b|\bpescatarian\b|'
    r'^(?:just |now |then )?(?:switched|moved) (?:over )?to\b',
    re.IGNORECASE,
)
PROJECT = lazy_compile(
    r'项目|仓库|版本|上线|发布|进度|阻塞|里程碑|截止|排期|需求|迭代|重构|迁移|迁到|决定|约定|'
    r'\b(?:project|repo|repository|release|milestone|sprint|deadline|blocked|blocker|shipped|'
    r'launch|launched|roadmap|migration|rewrite|refactor|we decided|decided to|we agreed|'
    r'agreed to|in progress|merged|deployed|code freeze|in beta)\b|'
    r'\bwe (?:moved|migrated|switched) (?:from|off)\b',
    re.IGNORECASE,
)
# a project's status with no first person: "The Apollo project is now in beta", "2.3 版本发布了"
PROJECT_STATUS = lazy_compile(
    r'(?:项目|仓库|版本|重构|迁移|需求|迭代|里程碑|分支).{0,24}(?:完成|卡住|阻塞|上线|发布|截止|推迟|'
    r'延期|进行中|冻结|不超过)|(?:发布了|上线了|完成了|卡住了).{0,16}(?:版本|项目|重构|迁移)|'
    r'\b(?:project|migration|rewrite|refactor|release|sprint|milestone|repo)\b.{0,40}'
    r'\b(?:blocked|shipped|done|in beta|released|launched|due|scheduled|complete|merged|'
    r'deployed|delayed|on hold)\b',
    re.IGNORECASE,
)
FACT_ZH = lazy_compile(
    r'是|有|在|住|来自|出生|毕业|工作|养|开|买|搬|入职|加入|离职|上班|长大|老家|过敏|不耐受|负责|做'
)
FACT_EN = lazy_compile(
    r'\b(?:is|are|was|were|am|have|has|own|live|lives|work|works|from|born|studied|study|grew|'
    r'joined|started|left|hired|moved|relocated|drive|ride|keep|bought|got|adopted|teach|based|'
    r"turns|allergic|intolerant|run|lead|manage)\b|'s\b|'m\b|'ve\b",
    re.IGNORECASE,
)
# a name said as "I'm Ravi": a capitalised word that is not a nationality or an adjective
NAME_IM = lazy_compile(
    r"(?:^|[,.!]\s*)(?:(?:[Hh]i|[Hh]ello|[Hh]ey)[,!]?\s+)?[Ii]'?m\s+([A-Z][a-z]{1,20})"
    r'(?=$|\s+(?:and|here|from)\b|[,.!])'
)
NOT_A_NAME = lazy_compile(r'(?:ese|ish|ian|an|ic|ed|ing|ful|less|ous|ive|y)$')

SALIENT_EN = lazy_compile(
    r"\bmy name\b|\bcall me\b|\bi(?:'m| am) called\b|\bi(?:'d)? prefer\b|"
    r'\bi (?:really |also |still |do |only |just )?(?:like|love|enjoy|hate|dislike|prefer|use)\b'
    r'(?! (?:it|this|that|them|these|those|you)\b)|'
    r"\bi (?:don't|do not|never) (?:like|want|use|eat|drink|work)\b|"
    r"\bremember (?:that|this|:)|\bplease remember\b|^\s*remember\b|\bdon't forget\b|"
    r'\bnote that\b|\bkeep in mind\b|\bmy (?:[\w-]+ ){0,2}(?:is|are|was|were)\b|'
    rf'\bmy (?:{_KIN_EN}|birthday|phone|email|address|favou?rite|team|company|project)\b|'
    r"\bi(?:'m| am) (?:from|based in|allergic|vegetarian|vegan|lactose|a night)\b|"
    r"\bi(?:'m| am) (?:a|an) (?!bit\b|little\b|lot\b)\w+|\bi(?:'ve| have) been\b|"
    r'\bfrom now on\b|\b(?:always|never|please) (?:use|reply|answer|respond|write|call|run)\b|'
    r'\bwe (?:use|decided|agreed|deploy|release|switched|shipped|launched|released|migrated|'
    r'moved|dropped)\b|\bour (?:project|repo|team|release)\b|'
    r'\bi (?:switched|moved|changed) to\b|\bi report to\b|^\s*/remember\b|'
    r'^\s*(?:just |now |then )?switched (?:over )?to\b|'
    r"\bi(?:'m| am) (?:now )?(?:on|using)\b|\bi used to\b|"
    + _POSSESS_EN
    + '|'
    + _LIFE_EN
    + '|'
    + _DIET,
    re.IGNORECASE,
)
SALIENT_ZH = lazy_compile(
    r'记住|记一下|记下来|帮我记|别忘了|不要忘|我叫|叫我|我是(?!说|不是|在问|想问)|'
    r'我的(?!天|妈呀|哥呀)|我.{0,4}(?:喜欢|讨厌|偏好|偏爱|习惯|最爱)|'
    rf'我爱(?!你)|我家|我住|我(?:{_KIN_ZH})|我向.{{1,8}}汇报|我生日|我出生|我来自|'
    r'我有(?!点|些|一点|个问题|问题|事|空)|我不(?:吃|喝|用)|以后(?:都|请)?(?:用|回答|回复|叫)|'
    r'回答不要|回复不要|不要用|别用|我们(?:的项目|的仓库|的代码|决定|用|改用|上线|公司|团队|已经)|'
    r'我已经(?:搬|换|改)|我搬到|我.{0,4}(?:换成|改用|换用)|我(?:现在|以前)?用(?!一下|你|中文问|英文问)|^\s*/remember|'
    r'(?:回答|回复|代码|注释|输出|文档|提交信息).{0,4}(?:请|要|不要|别|用)|'
    + _POSSESS_ZH
    + '|'
    + _LIFE_ZH
    + '|'
    + _DIET
)
DIET_PREFERENCE = lazy_compile(
    r"vegetarian|vegan|pescatarian|\bi (?:only |never |don't |do not )?(?:eat|drink)\b|"
    r'吃素|素食|不吃|不喝|忌口|戒了',
    re.IGNORECASE,
)
DIET_FACT = lazy_compile(r'allergic|allergy|intolerant|gluten|过敏|不耐受', re.IGNORECASE)
# a clause that continues the one before it: "…，是一名医生", "…, they are twins", "…，这是原则"
CONTINUATION = lazy_compile(
    r'^(?:是|也是|今年|这|那|它|他们|她们|他|她|所以|因为|(?:一|另一|两|其中一?)(?:只|个|条|位|辆|台)|'
    r'which|so\b|because\b|'
    r"(?:they|he|she|it|this|that)(?:'re|'s| are| is| was| were)\b|too\b|as well\b)",
    re.IGNORECASE,
)
# a subject-less Chinese clause of a first-person sentence: "不喜欢猫" -> "我不喜欢猫"
ZH_VERB_LEAD = lazy_compile(
    r'^(?:不|也|还|很|最|比较|特别|一直|现在|已经|目前|平时|后来|去年|今年)?'
    r'(?:喜欢|不喜欢|讨厌|爱|住|搬|养|有|入职|加入|换|改用|开|买|在.{1,12}(?:工作|上班))'
)
# a request to the assistant inside a statement: "…，推荐几家火锅店吧"
REQUEST = lazy_compile(
    r'^(?:请?(?:帮我|给我|推荐|麻烦|查一下|搜一下)|(?:can|could|would) you\b|please (?!use|'
    r"don'?t|do not|remember|note|always|never|reply|answer|write|call)\w+)",
    re.IGNORECASE,
)
# a reproach after a correction belongs to it: "…, I told you before", "…，我说过很多次了"
REPROACH = lazy_compile(
    r'^(?:i (?:told|said|already|have told)|(?:as )?i said|again\b)|^(?:我(?:说过|讲过|告诉过)|又)',
    re.IGNORECASE,
)
POSSESSION = lazy_compile(_POSSESS_EN + '|' + _POSSESS_ZH, re.IGNORECASE)
# explicit "remember", questions, procedures, names and predicates of capture's clauses
EXPLICIT = lazy_compile(
    r'^\s*/remember\b\s*[:：,，]?\s*|'
    r'^\s*(?:please\s+)?(?:remember|note)(?:\s+that)?\s*[:：,，]?\s*|'
    r'^\s*(?:请|帮我)?(?:记住|记一下|记下来|别忘了|不要忘了?)\s*[:：,，]?\s*',
    re.IGNORECASE,
)
EXPLICIT_ANYWHERE = lazy_compile(r'\bremember that\b|\bdon\'t forget\b|记住|别忘了', re.I)
QUESTION_MARK = lazy_compile(r'[?？]\s*[\W_]*$')
QUESTION_ZH = lazy_compile(
    r'(?:吗|呢|么|嘛)\s*[\W_]*$|什么|啥|哪|谁|多少|几(?:个|点|号|岁|月|天|年|次|位)|怎么|为什么|'
    r'是不是|有没有|能不能|可不可以|对不对'
)
QUESTION_EN = lazy_compile(
    r"^\s*(?:what|what's|whats|who|who's|whom|whose|where|where's|when|why|how|which|do|does|"
    r'did|is|are|am|was|were|can|could|would|will|should|shall|may|might|have|has)\b',
    re.IGNORECASE,
)
PROCEDURE = lazy_compile(
    r'先.+(?:再|然后|之后).+|步骤|流程|以后遇到.+就|遇到.+(?:先|就)|每次.+(?:都要|先|就)|'
    r'\bfirst\b.+\bthen\b|\bstep \d|\bwhenever\b|\bevery time\b.+|\bto (?:deploy|release|'
    r'restart|publish|roll back|rollback)\b.*\b(?:run|use|do)\b|\bbefore (?:deploying|merging|'
    r'releasing|pushing|committing)\b',
    re.IGNORECASE,
)
NAME_ZH = lazy_compile(
    r'(?:我叫|叫我|我的名字(?:是|叫)|我名字(?:是|叫)|称呼(?:我为?|为|是|改为|改成|换成)|^改叫)'
    r'\s*([^\s,，。！？!?、;；:：]{1,12})'
)
NAME_EN = lazy_compile(
    r"\b(?:my name is|my name's|call me|i'm called|i am called)\s+"
    r"([A-Z\u00c0-\u024f][\w'-]*(?:\s+[A-Z\u00c0-\u024f][\w'-]*){0,2}|[\u4e00-\u9fff]{1,6})",
    re.IGNORECASE,
)
PREDICATE = lazy_compile(
    r'是|叫|住|喜欢|爱|讨厌|生日|出生|有|在.{0,10}(?:工作|上班)|用|来自|养|搬|入职|加入|离职|换|='
    r'|\b(?:is|are|was|were|am|live|lives|work|works|prefer|prefers|like|likes|love|loves|hate|'
    r"use|uses|born|call|have|has|own|drive|joined|started|moved)\b|'s\b|'m\b",
    re.IGNORECASE,
)
