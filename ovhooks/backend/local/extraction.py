"""What a commit keeps from the user's turns, without a language model.

Every *substantive statement* the user made becomes a memory candidate, kept verbatim: a fact,
a person and their role, an environment detail, a gotcha with its fix, a convention, a
decision, a preference, in English or Chinese, with or without a trigger word. What is not a
statement is recognised by its *form*, not by its topic: questions, one-off requests to the
agent ("ok now add a refund endpoint"), slash commands, and acknowledgements. A request
phrased as a rule ("When X fails, rerun it with --from-date", "建表一律用 utf8mb4") is a
convention and is kept. The unit is the user's line, so a statement keeps its fix ("…breaks
behind the VPN; export X first") instead of losing it at a ``;`` or a full stop.

A statement's *lead* (the question or complaint said just before it, not kept) is searchable
with it: a later prompt often asks that same question (``statements_with_lead``).

What is not promoted is not lost: ``history_statements`` gives the rest of what the user said,
which the store indexes sentence by sentence under the session's archive (the history layer:
working state, durable memory, history), so recall can still find it there.

Everything here is pure and deterministic: the same turns give the same candidates.
"""

from __future__ import annotations

import re

from ovhooks.backend.local.messages import lines, prose, sentences, split_line
from ovhooks.lexical.text import has_cjk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# --- the form of a sentence ---------------------------------------------------------------

# Words that open a sentence without changing what it is ("ok now add …" is a request).
_LEAD = (
    r"^(?:(?:ok(?:ay)?|so|and|also|now|then|alright|all right|great|cool|right|oh|well|hmm|"
    r"yeah|yes|no|hey|hi|thanks|thank you|perfect|nice|good|sure)\b[\s,.!:;-]*)*"
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
        _LEAD + r"(?:please|pls|can you|could you|would you|will you|can we|could we|"
        r"i want you to|i need you to|i'?d like you to|let'?s|let us|go ahead|help me|"
        r"add|run|fix|make|create|write|update|change|rename|remove|delete|refactor|implement|"
        r"show|check|look|open|move|install|build|debug|explain|give|tell|find|list|print|"
        r"commit|push|merge|revert|undo|continue|start|stop|redo|generate|convert|clean|"
        r"review|read|summari[sz]e|describe|bump|upgrade|edit|replace|try|send|retry|rerun|"
        r"restart|compare|search|ship|finish|do it|go on|proceed)\b"
    ),
    "request_zh": (
        r"^(?:好的?[，,]?|那|现在|然后|再|顺便)?(?:帮我|帮忙|请你?|麻烦|你[来去先帮把看]|给我|把|"
        r"看一?下|看看|跑一?下|运行|执行|加一?个|添加|修改|修复|改一?下|删[掉除]|写一?个|生成|"
        r"重构|实现|检查|查一?下|试试|试一?下|继续|提交一?下)"
        # "give X a Y": "给这个 PR 写个描述", "给 user 表加个字段"
        r"|^给(?:我|这个|那个)?[^，,。；;]{0,16}?(?:加|写|补|配|建)个"
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


def _is(name: str, text: str) -> bool:
    if not _compiled:
        # Compiled on first use: a commit is a cold path, recall never gets here.
        for key, source in _PATTERNS.items():
            flags = 0 if key == "person" else re.I
            _compiled[key] = re.compile(source, flags)
    return _compiled[name].search(text) is not None


def is_command(sentence: str) -> bool:
    return _is("command", sentence.strip())


def is_question(sentence: str) -> bool:
    """A question asks; "When X, do Y" and "if X, Y" are rules, not questions."""
    text = sentence.strip()
    if text.endswith(("?", "？")):
        return True
    if has_cjk(text):
        return _is("question_zh", text)
    return _is("question_en", text)


def states_preference(sentence: str) -> bool:
    return _is("preference", sentence)


def states_decision(sentence: str) -> bool:
    return _is("decision", sentence)


def _is_request(text: str) -> bool:
    """A one-off task for the agent: an imperative or a polite ask, unless it states a rule."""
    if has_cjk(text):
        return _is("request_zh", text) and not _is("rule_zh", text)
    if _is("rule_en", text) or _is("preference", text) or _is("decision", text):
        return False
    return _is("request_en", text) or _is("tail_request", text) or _verb_object(text)


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
    while rest and _is("ack", rest):
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
    if _is("inform", text):
        return "statement"
    if is_question(text):
        return "question"
    if _is_request(text):
        return "request"
    if _is("transient", text) and not (_is("rule_en", text) or _is("rule_zh", text)):
        return "state"
    return "statement"


# --- candidates ---------------------------------------------------------------------------


class Candidate:
    """A statement worth keeping: ``category`` is preferences, entities or events."""

    __slots__ = ("category", "lead", "project", "subject", "text")

    def __init__(self, text: str, category: str, subject: str, project: bool) -> None:
        self.text = text
        # What the user said just before it and did not keep (``statements_with_lead``).
        self.lead = ""
        self.category = category
        # entities: "person" or "project" or "facts"; otherwise "".
        self.subject = subject
        # True: belongs to the project (peer) it was said in; False: about the user anywhere.
        self.project = project

    def __repr__(self) -> str:
        return f"Candidate({self.category}, project={self.project}, {self.text!r})"


_MAX_STATEMENT_CHARS = 500


def _substantive(text: str) -> bool:
    compact = "".join(text.split())
    if len(compact) < (4 if has_cjk(compact) else 10) or len(text) > _MAX_STATEMENT_CHARS:
        return False
    return content_size(text) >= 2


def classify(statement: str) -> Candidate | None:
    """The memory a user's statement states, or None when it is no statement at all."""
    text = statement.strip()
    if not _substantive(text) or form_of(text) != "statement":
        return None
    about_project = _is("project", text)
    personal = _is("personal", text) and not about_project
    if _is("preference", text):
        return Candidate(text, "preferences", "", project=not personal)
    if _is("decision", text):
        return Candidate(text, "events", "", project=True)
    if _is("identity", text):
        return Candidate(text, "entities", "person", project=False)
    if _is("person", text):
        return Candidate(text, "entities", "person", project=True)
    return Candidate(text, "entities", "project" if about_project else "facts", not personal)


# What led to a statement is kept up to this many characters (the part nearest it).
LEAD_CHARS = 240


def statements_with_lead(text: str) -> list[tuple[str, str]]:
    """The statements of one user turn, each line from its first statement sentence on, and
    each with its *lead*.

    Leading questions and requests are not part of a statement ("Can you fix the build? FYI
    CI uses Node 18" keeps the second sentence); after a statement, a bare imperative stays
    with it (it is usually the fix: "pnpm install breaks behind the VPN. Export X first."), a
    question or a polite request ends it.

    The lead is what the user said just before the statement in the same turn and did not
    keep, polite requests and commands aside: the question or complaint the fact answers
    ("the lidar topic shows nothing in rviz?" before "the driver publishes best-effort, so
    subscribers need SensorDataQoS"). A later prompt often asks that same question; the
    store indexes the lead's words with the memory (never shown as its text)."""
    out: list[tuple[str, str]] = []
    lead: list[str] = []
    for line in lines(prose(text)):
        kept: list[str] = []
        for part in split_line(line):
            form = form_of(part)
            if not kept:
                if form == "statement" and _substantive(part):
                    kept.append(part)
                elif form != "command" and not _polite(part):
                    # a request to the agent ("please keep X in mind") is no context of the
                    # fact, and its topic words would make every such memory match X
                    lead.append(part)
                continue
            if form in ("question", "command") or (_is("request_en", part) and _polite(part)):
                # what ended a statement (a question, a request) leads nowhere: it is
                # mostly the next task, not what the next fact answers
                out.append((" ".join(kept), _tail(lead)))
                kept, lead = [], []
                continue
            kept.append(part)
        if kept:
            out.append((" ".join(kept), _tail(lead)))
            lead = []
    return out


def _tail(parts: list[str]) -> str:
    text = " ".join(parts)
    return text if len(text) <= LEAD_CHARS else text[-LEAD_CHARS:]


def _polite(text: str) -> bool:
    return (
        re.match(r"(?i)^\W*(?:please|pls|can you|could you|would you|will you)\b", text) is not None
    )


def memory_candidates(user_texts: Iterable[str]) -> list[Candidate]:
    """Candidates from the user's turns, in order, without exact repeats."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for text in user_texts:
        for statement, lead in statements_with_lead(text):
            candidate = classify(statement)
            if candidate is None:
                continue
            candidate.lead = lead
            key = " ".join(candidate.text.lower().split())
            if key not in seen:
                seen.add(key)
                out.append(candidate)
    return out


def history_statements(user_texts: Iterable[str], promoted: Iterable[str]) -> list[str]:
    """What else the user said, sentence by sentence, for the archive's history index.

    Everything with some content except slash commands, filler, and what was promoted
    (whole, or as one sentence of a promoted statement).
    """
    done: set[str] = set()
    for text in promoted:
        done.add(" ".join(text.lower().split()))
        done.update(" ".join(s.lower().split()) for s in split_line(text))
    out: list[str] = []
    seen: set[str] = set()
    for text in user_texts:
        for sentence in sentences(prose(text)):
            key = " ".join(sentence.lower().split())
            if key in seen or key in done:
                continue
            seen.add(key)
            if form_of(sentence) in ("command", "filler") or not _substantive(sentence):
                continue
            out.append(sentence)
    return out
