"""What a local commit keeps: every substantive statement, whole; nothing that is not one."""

from __future__ import annotations

import pytest

from ovhooks.backend.local.extraction import (
    classify,
    form_of,
    history_statements,
    is_question,
    memory_candidates,
)

# Statements people make while working, none with a "remember" / "I prefer" style trigger.
STATEMENTS = [
    # environment: hosts, ports, versions, paths
    "the staging database listens on port 6543, not the default one",
    "our CI runners are on Ubuntu 22.04 with Go 1.22 preinstalled",
    "the mobile app reads feature toggles from config/remote-toggles.json at launch",
    # people and roles
    "Kwame is the release manager; he tags every build that goes to the app stores",
    "Ines maintains the search indexer and knows why the synonyms file is so big",
    # gotchas with their fixes, kept whole across ';' and '.'
    "heads up: the importer chokes on CSVs with a BOM; strip it with sed first",
    "the e2e suite flakes on the login page. Bump the wait to 10 s in playwright.config.ts.",
    # conventions, including "When ..., do ..." rules
    "When the cache warmer times out, restart it with --shard-size 500 rather than rerunning",
    "integration tests hit a real Postgres in docker compose, not a mock",
    # decisions and preferences phrased without trigger words
    "we went with Litestream for the SQLite backups",
    "I use tmux with Ctrl-a as the prefix",
    "FYI the VPN drops idle SSH sessions after ten minutes",
    # Chinese
    "测试环境的 Redis 在 10.0.3.7 上，密码放在 Vault 里",
    "接口文档放在 docs/api 目录下，每个服务一个文件",
    "周会改到每周三上午十点，在三楼会议室",
    "小王负责支付网关，改签名逻辑前先找他确认",
]

# What is said to the agent about the work in hand: not memory.
NOT_STATEMENTS = [
    "can you add retries to the uploader",
    "ok now rename the helper to parse_args",
    "why is the build red?",
    "what does the cleanup job do",
    "thanks, looks good",
    "great, open a PR",
    "/compact",
    "好的，谢谢",
    "帮我把这个函数改成异步的",
    "这个接口为什么返回 500？",
    "the lint job is failing again right now",
    "the checkout page crashes when the cart is empty, can you look",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_a_statement_without_trigger_words_is_kept_whole(statement: str) -> None:
    candidates = memory_candidates([statement])
    assert [c.text for c in candidates] == [statement]


@pytest.mark.parametrize("text", NOT_STATEMENTS)
def test_questions_requests_acknowledgements_and_work_state_are_not_promoted(text: str) -> None:
    assert memory_candidates([text]) == []


def test_people_and_roles_are_entities_of_the_project() -> None:
    for text in (STATEMENTS[3], STATEMENTS[15]):
        candidate = classify(text)
        assert candidate is not None
        assert (candidate.category, candidate.subject, candidate.project) == (
            "entities",
            "person",
            True,
        )


def test_a_rule_in_the_imperative_is_no_question_and_no_request() -> None:
    rule = "When a migration fails halfway, restore the snapshot before retrying."
    assert not is_question(rule)
    assert form_of(rule) == "statement"
    assert form_of("restore the snapshot") == "request"


def test_a_statement_after_a_request_in_the_same_turn_is_kept() -> None:
    turn = "Can you fix the build? FYI CI pins Node 18.19 in .nvmrc."
    assert [c.text for c in memory_candidates([turn])] == ["FYI CI pins Node 18.19 in .nvmrc."]


def test_what_was_not_promoted_goes_to_history() -> None:
    turns = [
        "the daily_orders DAG failed again last night, check the logs",
        "the staging database listens on port 6543, not the default one",
        "thanks",
    ]
    promoted = [c.text for c in memory_candidates(turns)]
    assert promoted == [turns[1]]
    assert history_statements(turns, promoted) == [
        "the daily_orders DAG failed again last night, check the logs"
    ]
