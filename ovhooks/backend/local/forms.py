"""The form of what a user says, sentence by sentence: a statement, a question, a request to
the agent, the state of the work in hand, a command or filler (``form_of``), recognised by
form and not by topic, in English and Chinese; and the few shapes built on it that extraction
needs (a polite ask, the next task after a fact, the report before an ask).

Pure and deterministic; the patterns compile on first use (a commit is a cold path, recall
never gets here).
"""

from __future__ import annotations

import re

from ovhooks.lexical.text import has_cjk

# Words that open a sentence without changing what it is ("ok now add …" is a request).
_LEAD = (
    r"^(?:(?:ok(?:ay)?|so|and|also|now|then|alright|all right|great|cool|right|oh|well|hmm|"
    r"yeah|yes|no|hey|hi|thanks|thank you|perfect|nice|good|sure|anyway|anyways|btw|"
    r"by the way|meanwhile|next|but|ugh|argh|oops|huh|uh|um|while you'?re (?:at it|in there))"
    r"\b[\s,.!:;-]*)*"
)
# A polite ask of the agent (alternatives, for the patterns below).
_POLITE = r"please|pls|can you|could you|would you|will you"
# What turns an imperative after a fact into the next task, not the fact's fix: a marker
# that moves on ("anyway, run the tests", "now add …") or a polite ask of the agent.
_NEXT_TASK_EN = (
    r"^\W*(?:(?:ok(?:ay)?|so|and|also|then|oh|but|right)\b[\s,.!:;-]*)*"
    r"(?:anyway|anyways|now|next|meanwhile|btw|by the way|while you'?re (?:at it|in there)"
    rf"|{_POLITE}|let'?s|let us)\b"
)
# The same in Chinese: "先把 X 写了", "帮我…", "麻烦…", "顺便…" after the fact.
_NEXT_TASK_ZH = (
    r"^(?:好的?[，,]?|那|现在|然后|接着|另外|顺便|顺手)?"
    r"(?:先把|先帮|先给|你先|你帮|帮我|帮忙|麻烦|请你?|顺便|顺手)"
)
_PATTERNS = {
    "lead": _LEAD,
    "question_en": (
        _LEAD + r"(?:who|what|where|why|how|which|whose|is|are|was|were|do|does|did|can|could|"
        r"would|should|will|shall|may|have|has|had|isn'?t|aren'?t|doesn'?t|don'?t you)\b"
    ),
    "question_zh": (
        r"[吗么][\s。！!]*$|什么|为什么|为啥|怎么|如何|哪[里个些儿种]|是否|能否|多少|有没有|是不是"
        r"|能不能|可不可以|要不要|会不会|行不行|好不好|啥|咋|干嘛"
    ),
    "request_en": (
        _LEAD + rf"(?:{_POLITE}|can we|could we|"
        r"i want you to|i need you to|i'?d like you to|let'?s|let us|go ahead|help me|"
        r"add|run|fix|make|create|write|update|change|rename|remove|delete|refactor|implement|"
        r"show|check|look|open|move|install|build|debug|explain|give|tell|find|list|print|"
        r"commit|push|merge|revert|undo|continue|start|stop|redo|generate|convert|clean|"
        r"review|read|summari[sz]e|describe|bump|upgrade|edit|replace|try|send|retry|rerun|"
        r"restart|compare|search|ship|finish|do it|go on|proceed)\b"
    ),
    "request_zh": (
        r"^(?:好的?[，,]?|那|现在|然后|再|顺便|先|另外|接着|顺手)?(?:帮我|帮忙|请你?|麻烦|你[来去先帮把看]|给我|把|"
        r"看一?下|看看|跑一?下|运行|执行|加一?个|添加|修改|修复|改一?下|删[掉除]|写一?个|生成|"
        r"重构|实现|检查|查一?下|试试|试一?下|继续|提交一?下)"
        # "give X a Y": "给这个 PR 写个描述", "给 user 表加个字段"
        r"|^先?给(?:我|这个|那个)?[^，,。；;]{0,16}?(?:加|写|补|配|建)个"
        # a task after the report it is about: "列表滑起来很卡，帮我看看", "…，你看下"
        r"|[，,。；;！!]\s*(?:那|就|再|顺便|先)?(?:你|请你?|麻烦你?)?(?:帮我|帮忙|看看|"
        r"[看查改跑试]一?下)[^，,。；;]*$"
        # a task whose verb comes last: "单元测试跑一下", "把构建说明更新一下"
        r"|[\u4e00-\u9fff]一下[^，,。；;]{0,40}?[吧呢啊]?[\s。！!~]*$"
        # a suggestion: "8080 被占用了，换一个吧"
        r"|吧[\s。！!~]*$"
    ),
    # A rule, not a one-off task: it says when, how often or never.
    "rule_en": (
        r"\b(?:always|never|every|each|whenever|any ?time|from now on|going forward|"
        r"in (?:the )?future|by default|as a rule|must|should|have to|has to|needs? to|"
        r"don'?t|do not|avoid|instead of|rather than|only|unless|otherwise)\b"
        r"|^(?:when|whenever|if|once|unless)\b"
        # a prohibition: "— no new ObservableObject classes please", "no force pushes"
        r"|(?:^|[—–;:]\s*)no\s+(?!(?:problem|worries|idea|thanks|rush|luck|way)\b)[a-z]"
    ),
    "rule_zh": (
        r"一律|统一|总是|永远|每次|以后|今后|不要|必须|务必|只能|只用|遇到|如果|先.+再"
        # "don't" (别), not the 别 of 级别, 区别, 识别 ...
        r"|(?:^|[，,。；;\s先就也都可万])别"
        r"|之[前后](?:要|得|必须|一律|都|先|再)|一定要|一定得|千万|前(?:要|得)?先"
        r"|每[天晚周月年]|每个?(?:星期|礼拜)"
    ),
    # Words that announce information: what follows is a statement whatever its form.
    "inform": (
        r"^(?:fyi|heads[ -]up|note|btw|by the way|just so you know|for the record|"
        r"for reference|for context|remember|keep in mind|important|warning|careful|"
        r"gotcha|tip|pro tip)\b|顺便说一[下句]|提醒一下|注意|记住|记得|记一下|记下来|"
        r"说明一下|补充一下"
    ),
    "ack": (
        r"^(?:ok(?:ay)?|thanks?|thank you|great|perfect|nice|cool|awesome|good|lgtm|sure|yes|"
        r"yeah|yep|no|nope|done|fine|right|agreed|got it|sounds good|looks good(?: to me)?|"
        r"that works|works for me|makes sense|good job|well done|好的?|好|谢谢|可以|行|嗯|收到|"
        r"没问题|明白|懂了|对|是的|不错|很好|完美)(?:[\s,.!。！，~]+|$)"
    ),
    "command": r"^/[\w-]{1,64}\b",
    # The state of the work in hand ("X is hanging", "failed again last night"): working
    # state, kept in the history layer, not durable memory.
    "transient": (
        r"\b(?:still|again|right now|currently|at the moment|just now|today|tonight|"
        r"last night|this morning|yesterday|is (?:hanging|broken|failing|down|stuck))\b"
        r"|又|还是不|刚才|现在|今天|先到这"
    ),
    # A task tacked on after a comma: "the page crashes when the price is null, can you look".
    "tail_request": (
        r",\s*(?:(?:ok|now|then)\s+)?(?:please\s+)?(?:can you|could you|would you|"
        r"check|look|fix|see|investigate|debug|have a look|take a look)\b[^,]*$"
        r"|\bplease[.!]?$"
    ),
    "preference": (
        r"\b(?:i|we)\s+(?:really\s+|strongly\s+|usually\s+|always\s+|generally\s+|mostly\s+)?"
        r"(?:prefer|like|love|hate|dislike|enjoy|avoid|use)\b|\bi'?d rather\b|\bi would rather\b"
        r"|\bprefer(?:s|red|ence|ences)?\b|\bfavou?rite\b|\b(?:always|never)\b"
        r"|\b(?:don'?t|do not|never)\s+use\b|\binstead of\b|\brather than\b"
        r"|喜欢|偏好|偏爱|习惯|讨厌|倾向于|总是|永远|一律|务必|不要用|别用|请用|统一用|尽量|我一般|我都"
    ),
    "decision": (
        r"\b(?:we|i)\s+(?:have\s+|'ve\s+)?(?:decided|chose|picked|settled on|went with|agreed)\b"
        r"|\bdecision\b|\bagreed\b|\bwent with\b|\b(?:we'?re|we are)\s+(?:moving|switching|"
        r"migrating|going)\b"
        r"|\b(?:let'?s|let us|we'?ll|we will)\s+(?:go with|use|stick with|switch to|adopt|keep)\b"
        r"|决定|决策|确定用|定了|就用|改用|采用|选定|商定|约定|选了|不考虑"
    ),
    "identity": (
        r"\bmy\s+(?:name|email|e-mail|phone|birthday|timezone|time zone|github|handle|"
        r"username|team|company|role|job)\b|\bi\s+(?:live|am based|work)\s+(?:in|at|for)\b"
        r"|\bi'?m\s+from\b|\bcall me\b|[\w.+-]+@[\w-]+\.[\w.]+"
        r"|我叫|我的名字|我的邮箱|我住在|我来自|我是一名|叫我"
    ),
    # A named person and what they do: "Priya owns billing", "Dana is the on-call lead".
    "person": (
        r"(?:^|[\s,(])[A-Z][a-z]{2,}(?:\s[A-Z][a-z]+)?\s(?:owns|leads|manages|maintains|approves|"
        r"reviews|handles|runs|is (?:the|our|on|in charge|responsible)|knows|wrote|built)\b"
        r"|\b(?:ask|ping|page|talk to|contact|cc)\s[A-Z][a-z]{2,}\b"
        r"|负责人|由.{1,6}负责|找.{1,6}(?:审批|确认|review)|.{1,6}负责"
    ),
    "personal": r"\b(?:i|i'm|i'd|i've|my|me)\b|我(?!们)",
    "project": (
        r"\b(?:this|our|the)\s+(?:project|repo|repository|codebase|app|service|package)\b"
        r"|\bhere\b|这个项目|本项目|该项目|我们的项目|这个仓库|本仓库|我们"
    ),
}

_compiled: dict[str, re.Pattern[str]] = {}


def matches(name: str, text: str) -> bool:
    if not _compiled:
        # Compiled on first use: a commit is a cold path, recall never gets here.
        for key, source in _PATTERNS.items():
            flags = 0 if key == "person" else re.I
            _compiled[key] = re.compile(source, flags)
    return _compiled[name].search(text) is not None


def is_command(sentence: str) -> bool:
    return matches("command", sentence.strip())


def is_question(sentence: str) -> bool:
    """A question asks; "When X, do Y" and "if X, Y" are rules, not questions."""
    text = sentence.strip()
    if text.endswith(("?", "？")):
        return True
    if has_cjk(text):
        return matches("question_zh", text)
    return matches("question_en", text)


def states_preference(sentence: str) -> bool:
    return matches("preference", sentence)


def states_decision(sentence: str) -> bool:
    return matches("decision", sentence)


def _is_request(text: str) -> bool:
    """A one-off task for the agent: an imperative or a polite ask, unless it states a rule."""
    if has_cjk(text):
        return matches("request_zh", text) and not matches("rule_zh", text)
    if matches("rule_en", text) or matches("preference", text) or matches("decision", text):
        return False
    if _labelled(text):
        return False
    return matches("request_en", text) or matches("tail_request", text) or _verb_object(text)


def _labelled(text: str) -> bool:
    """A statement under a label: "commit messages: imperative mood, …", "ports: api 8080".
    The label is a noun phrase (no object word: "run this: npm test" is a request)."""
    label, colon, rest = text.partition(":")
    words = label.lower().split()
    return (
        bool(colon)
        and 1 <= len(words) <= 4
        and not _OBJECT_WORDS.intersection(words)
        and content_size(rest) >= 2
    )


_OBJECT_WORDS = frozenset(
    "the a an this that these those it them my our your me us all some every each".split()  # noqa: SIM905
)


def _verb_object(text: str) -> bool:
    """The shape of an imperative: a first word that is no function word, then an object
    ("restore the snapshot", "bump it"), where a statement has its subject first
    ("the importer chokes", "python is pinned")."""
    from ovhooks.lexical.text import ENGLISH_STOP_WORDS

    words = re.sub(_PATTERNS["lead"], "", text.lower()).split()
    return (
        len(words) >= 2
        and words[0].isalpha()
        and words[0] not in ENGLISH_STOP_WORDS
        and words[1] in _OBJECT_WORDS
    )


def content_size(text: str) -> int:
    """How much the text says: content words, CJK content characters counting half."""
    from ovhooks.lexical.text import terms

    found = terms(text)
    cjk = sum(1 for t in found if has_cjk(t))
    return len(found) - cjk + (cjk + 1) // 2


def _is_ack(text: str) -> bool:
    """Acknowledgement or filler: nothing left once the thanks and okays are taken off."""
    rest = text
    while rest and matches("ack", rest):
        rest = _compiled["ack"].sub("", rest, count=1).strip()
    return content_size(rest) < 2


def form_of(sentence: str) -> str:
    """``statement``, ``question``, ``request``, ``state`` (of the work in hand), ``command``
    or ``filler``."""
    text = sentence.strip()
    if is_command(text):
        return "command"
    if _is_ack(text):
        return "filler"
    if matches("inform", text):
        return "statement"
    if is_question(text):
        return "question"
    if _is_request(text):
        return "request"
    if matches("transient", text) and not (matches("rule_en", text) or matches("rule_zh", text)):
        return "state"
    return "statement"


def polite(text: str) -> bool:
    """A polite ask of the agent, after any opener: "please …", "anyway, can you …"."""
    return re.match(_LEAD + rf"(?:{_POLITE})\b", text, re.I) is not None


def next_task(part: str, form: str) -> bool:
    """Whether ``part``, said after a statement, moves on to the next task for the agent
    ("anyway, can you also check level 4", "先把迁移脚本写了"): it ends the statement, and is
    no fact of it. A bare imperative stays with the statement: it is mostly the fix."""
    if form != "request":
        return False
    pattern = _NEXT_TASK_ZH if has_cjk(part) else _NEXT_TASK_EN
    return re.match(pattern, part.strip(), re.I) is not None


def report_before_ask(sentence: str) -> str:
    """The report of "X returns 500 when Y, can you look?" (the part before its last comma,
    when that part is a statement or the state of the work), else ""."""
    head, comma, _ask = re.sub(r"[,，](?=[^,，]*$)", ",", sentence).rpartition(",")
    if comma and form_of(head) in ("statement", "state") and content_size(head) >= 2:
        return head.strip()
    return ""
