"""A question that asks who, and a memory that names a person in charge (pure patterns), and
the fusion's answer to a who-question: the person memory that stands out, or none."""

from __future__ import annotations

import pytest

from ovhooks.semantic import fusion
from ovhooks.semantic.answer_type import asks_general, asks_who, names_person
from ovhooks.semantic.fusion import Evidence, answer_who, decline_general, fuse

T = 0.55


@pytest.mark.parametrize(
    "prompt",
    [
        "who signs off on changes to the refund flow?",
        "Whose call is it if we change the escalation timers?",
        "quick question: who do I ping about the staging cluster",
        "which colleague should review the firmware bootloader change?",
        "the export broke again. who owns that job?",
        "抢购活动的规则谁说了算？",
        "改路由之前要跟哪位同事打招呼",
    ],
)
def test_a_question_for_a_person_asks_who(prompt: str) -> None:
    assert asks_who(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "notify the user who created the ticket when it closes",
        "how do I format a number with two decimals?",
        "把导出的表头加粗",
        "the reviewers whose approval is missing get a reminder email",
    ],
)
def test_a_relative_who_or_no_who_asks_no_person(prompt: str) -> None:
    assert not asks_who(prompt)


@pytest.mark.parametrize(
    "memory",
    [
        "Priya owns the billing service, so invoice changes need her sign-off",
        "btw Tomasz designed the BLE protocol, ask him before changing any UUIDs",
        "Lena from support ops decides the SLA rules",
        "for anything sev2 or worse, page Dana",
        "路径规划模块是老周（周建平）负责的，改算法前先找他过一下",
        "报销规则归财务的周姐管",
    ],
)
def test_a_memory_naming_someone_in_charge_names_a_person(memory: str) -> None:
    assert names_person(memory)


@pytest.mark.parametrize(
    "memory",
    [
        "prod cluster is eks-prod-euw1 and staging is eks-stg-euw1",
        "Postgres runs on port 5433 in staging",
        "日志统一用英文写，方便在 ELK 里搜",
    ],
)
def test_a_plain_fact_names_no_person(memory: str) -> None:
    assert not names_person(memory)


def _person(key: str, strength: float, lexical: float = 0.3) -> Evidence:
    return Evidence(key, lexical, strength, "whole", person=True)


def _who(items: list[Evidence]) -> list[Evidence]:
    fuse(items, T)
    answer_who(items)
    return items


def test_a_who_question_takes_the_person_memory_that_stands_out() -> None:
    owner = _person("owner", fusion.AGREE + 0.5)
    other = _person("other", fusion.AGREE + 0.5 - fusion.WHO_GAP - 0.1)
    fact = Evidence("fact", 0.3, fusion.AGREE + 1.0, "whole")
    assert answer_who(fuse([owner, other, fact], T)) is owner
    assert (owner.decision, owner.reason) == (fusion.SEMANTIC, "answers_who")
    assert not other.admitted and not fact.admitted
    # the same candidates without a who-question: nothing is strong enough
    again = [_person("owner", owner.strength or 0.0), _person("other", other.strength or 0.0)]
    assert not any(e.admitted for e in fuse(again, T))


def test_no_person_is_taken_when_none_stands_out_or_none_is_strong() -> None:
    close = [_person("a", 4.0), _person("b", 4.0 - fusion.WHO_GAP + 0.1)]
    assert not any(e.admitted for e in _who(close))
    weak = [_person("a", fusion.AGREE - 0.1)]
    assert not any(e.admitted for e in _who(weak))
    # a history row is no person memory, and no strength means no reading by meaning
    row = Evidence("row", 0.3, 5.0, "whole", archive=True, person=True)
    unread = Evidence("unread", 0.3, None, person=True)
    assert not any(e.admitted for e in _who([row, unread]))


def test_a_person_already_admitted_answers_the_question() -> None:
    lexical = _person("named", 1.0, lexical=0.9)
    other = _person("other", 3.9)
    assert answer_who(fuse([lexical, other], T)) is None
    assert lexical.decision == fusion.LEXICAL and not other.admitted


def test_a_person_memory_admitted_on_its_words_answers_however_weak_its_meaning() -> None:
    worded = _person("worded", fusion.AGREE + 0.2, lexical=0.6)
    assert answer_who(fuse([worded], T)) is None
    assert (worded.decision, worded.reason) == (fusion.LEXICAL, "")


# --- questions about the world ---------------------------------------------------------------


@pytest.mark.parametrize(
    "prompt",
    [
        "Explain what squashing migrations does.",
        "explain the difference between a mutex and a semaphore",
        "Can you explain how a CDN caches images? Keep it short.",
        "What's a good way to model slowly changing dimensions?",
        "what is a reverse proxy",
        "What's the difference between TCP and UDP?",
        "Define idempotency with an example.",
        "Recommend a soldering kit for a beginner.",
        "tell me about the history of Unicode",
        "Postgres vs MySQL for a small side project?",
        "什么是信任策略？",
        "Vue 的 ref 和 reactive 有什么区别？",
        "给小白科普一下 DNS 的原理",
    ],
)
def test_a_question_about_the_world_asks_nothing_of_the_users(prompt: str) -> None:
    assert asks_general(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        # about the user, the team or the work at hand
        "Explain how our deploy works.",
        "explain what this function does",
        "What's the difference between the staging and prod configs here?",
        "Can you explain why my build fails?",
        "explain what parse_invoice returns",
        "Explain what the retryPolicy option does in config.yaml",
        "what's a good name for the new module? we keep them short",
        "Recommend a lint config for this repo.",
        # asked another way: a project question, or a task
        "How should I indent the new config loader module?",
        "how does the site get deployed?",
        "Where do staging deploys go?",
        "Add a test for the date parser.",
        "Describe the release steps.",
        "我们的部署流程和别的项目有什么区别？",
        "解释一下这个报错",
        "预发环境的地址是什么？",
        "",
    ],
)
def test_a_question_about_the_users_work_is_no_general_question(prompt: str) -> None:
    assert not asks_general(prompt)


def test_a_general_question_withdraws_every_admission_and_says_why() -> None:
    named = Evidence("named", 0.9, 2.0, "whole")
    meant = Evidence("meant", 0.1, fusion.STRONG + 1.0, "whole")
    weak = Evidence("weak", 0.1, 1.0, "whole")
    fuse([named, meant, weak], T)
    assert named.admitted and meant.admitted and not weak.admitted
    assert decline_general([named, meant, weak]) == 2
    assert not any(e.admitted for e in (named, meant, weak))
    assert named.reason == meant.reason == "general_question" and weak.reason == "weak"
