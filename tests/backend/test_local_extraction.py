"""What a local commit keeps: every substantive statement, whole; nothing that is not one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ovhooks.backend.local.extraction import (
    classify,
    history_statements,
    memory_candidates,
    statements_with_lead,
)
from ovhooks.backend.local.forms import form_of, is_question

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
    # Chinese requests whose verb comes last, after a report, or as a yes-no question
    "单元测试跑一下",
    "顺便把 README 里的构建说明更新一下",
    "登录服启动报错了，帮我看看",
    "iOS 那边也有同样的列表，跑一下模拟器看看",
    "能不能把日志级别调低一点",
]

# Chinese rules that use the same words as requests: still statements.
ZH_RULES_WITH_REQUEST_WORDS = [
    "部署前要先跑一下 make check",
    "撮合一定要用下一根 K 线的开盘价成交，用当根收盘价就是未来函数",
    "测试环境的数据库每晚 2 点会重置一下",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_a_statement_without_trigger_words_is_kept_whole(statement: str) -> None:
    candidates = memory_candidates([statement])
    assert [c.text for c in candidates] == [statement]


@pytest.mark.parametrize("text", NOT_STATEMENTS)
def test_questions_requests_acknowledgements_and_work_state_are_not_promoted(text: str) -> None:
    assert memory_candidates([text]) == []


@pytest.mark.parametrize("text", ZH_RULES_WITH_REQUEST_WORDS)
def test_a_chinese_rule_that_says_yixia_or_xian_is_kept(text: str) -> None:
    assert [c.text for c in memory_candidates([text])] == [text]


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


def test_a_prohibition_said_politely_is_a_rule() -> None:
    for rule in (
        "they're all @Observable now — no new ObservableObject classes please.",
        "no emojis in commit messages please",
        "keep the lockfile as it is; no manual edits please",
    ):
        assert form_of(rule) == "statement", rule
    # an ask that merely mentions "no" stays an ask
    for ask in ("fix the build, no rush", "no idea why it fails, can you check"):
        assert form_of(ask) == "request", ask


def test_a_statement_after_a_request_in_the_same_turn_is_kept() -> None:
    turn = "Can you fix the build? FYI CI pins Node 18.19 in .nvmrc."
    assert [c.text for c in memory_candidates([turn])] == ["FYI CI pins Node 18.19 in .nvmrc."]


def test_a_statement_keeps_what_led_to_it_in_the_same_turn() -> None:
    """The complaint or question said just before a fact is its lead (indexed with it, not
    shown); what ends a statement (a request, a question after it) leads nowhere."""
    turn = (
        "the lidar topic shows nothing in rviz? that's QoS. the driver publishes best-effort, "
        "so subscribers have to use SensorDataQoS"
    )
    assert statements_with_lead(turn) == [
        (
            "the driver publishes best-effort, so subscribers have to use SensorDataQoS",
            "the lidar topic shows nothing in rviz? that's QoS.",
        )
    ]
    # a question on its own line leads the fact on the next one
    assert statements_with_lead("why is the export empty?\nthe exporter skips rows on Sundays") == [
        ("the exporter skips rows on Sundays", "why is the export empty?")
    ]
    # the request after the first fact is the next task: it leads nowhere
    two = "the cache lives in Redis 7. can you bump the client? the queue is on RabbitMQ"
    assert statements_with_lead(two) == [
        ("the cache lives in Redis 7.", ""),
        ("the queue is on RabbitMQ", ""),
    ]
    # a complaint that reads like a request still leads; a polite request to the agent does not
    [fix] = memory_candidates(["ugh the DataLoader hangs again. notebooks need num_workers=0"])
    assert fix.lead == "ugh the DataLoader hangs again."
    [kept] = memory_candidates(["Please keep the staging cluster in mind. MCPCALL @keep"])
    assert (kept.text, kept.lead) == ("MCPCALL @keep", "")
    [node] = memory_candidates(["Can you fix the build? FYI CI pins Node 18.19 in .nvmrc."])
    assert (node.text, node.lead) == ("FYI CI pins Node 18.19 in .nvmrc.", "")


def test_a_long_lead_keeps_the_part_nearest_the_statement() -> None:
    from ovhooks.backend.local.extraction import LEAD_CHARS

    rambling = "why does this keep happening? " * 20
    [(_, lead)] = statements_with_lead(rambling + "the nightly job runs as the deploy user")
    assert len(lead) == LEAD_CHARS and rambling.rstrip().endswith(lead.rstrip())


def test_what_was_not_promoted_goes_to_history() -> None:
    turns = [
        "the daily_orders DAG failed again last night, check the logs",
        "the staging database listens on port 6543, not the default one",
        "thanks",
    ]
    promoted = [c.text for c in memory_candidates(turns)]
    assert promoted == [turns[1]]
    assert history_statements(turns, promoted) == ["the daily_orders DAG failed again last night"]


# Chinese turns written by helpers who had not read this module: turns.json was read to
# change the request rules (dev); turns_b.json was written afterwards and only measured.
# The bounds are what the rules scored, so a change that loses a fact or keeps more
# requests as memories fails here.
ZH_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "extraction_zh"


@pytest.mark.parametrize(("name", "max_requests_kept"), [("turns.json", 4), ("turns_b.json", 11)])
def test_fresh_chinese_turns_keep_every_fact_and_few_requests(
    name: str, max_requests_kept: int
) -> None:
    turns = json.loads((ZH_FIXTURES / name).read_text(encoding="utf-8"))["turns"]
    facts = [t["text"] for t in turns if t["label"] == "fact"]
    requests = [t["text"] for t in turns if t["label"] == "request"]
    assert len(facts) >= 35 and len(requests) >= 35
    missed = [t for t in facts if not memory_candidates([t])]
    kept = [t for t in requests if memory_candidates([t])]
    assert missed == []
    assert len(kept) <= max_requests_kept, kept


def test_the_next_task_after_a_fact_is_not_part_of_it() -> None:
    # An opener that moves on, or a polite ask, after the fact: the fact alone is kept.
    for turn, fact in (
        (
            "the project is pinned to Godot 4.3, it rewrites every uid. anyway, can you also "
            "check the platform in level 4",
            "the project is pinned to Godot 4.3, it rewrites every uid.",
        ),
        (
            "the demo build has to be on Steam by January 27. so let's make sure the export "
            "preset works",
            "the demo build has to be on Steam by January 27.",
        ),
        ("仓库要在 10 月 25 号封版。先把分仓规则表的迁移脚本写了", "仓库要在 10 月 25 号封版。"),
        ("签章的问题直接找王海涛。帮我把附件上传的进度条加上", "签章的问题直接找王海涛。"),
        ("压测 5 月 20 号开始。先给下单接口加个本地缓存", "压测 5 月 20 号开始。"),
    ):
        assert [text for text, _lead in statements_with_lead(turn)] == [fact]
    # A bare imperative after the fact is mostly its fix, and a rule said politely is a rule:
    # both stay with the fact.
    for turn in (
        "the e2e suite flakes on the login page. Bump the wait to 10 s in playwright.config.ts.",
        "the db is on 5432. please never push to main.",
        "先把旧表备份，再跑迁移",
        "上线前先给测试同学发邮件确认",
    ):
        assert [text for text, _lead in statements_with_lead(turn)] == [turn]


def test_history_keeps_what_was_said_not_what_was_asked() -> None:
    turns = [
        "can you add a management command to purge cancelled slots older than 90 days?",
        "please fix the incomplete pattern warnings in Unify.hs",
        "where does the gateway get its port from?",
        "帮我加一个商品上架的自定义消息",
        "把 DispatchService 里的日志整理一下",
        # a report and the state of the work are kept; a report before an ask, without it
        "the booking API returns 500 when a provider has no schedule set, can you look?",
        "列表滑起来很卡，帮我看看",
        "ugh the DataLoader hangs again in the notebook.",
        "支付回调的签名校验已经改好了。",
    ]
    assert history_statements(turns, []) == [
        "the booking API returns 500 when a provider has no schedule set",
        "列表滑起来很卡",
        *turns[7:],
    ]
    # the same report before a full stop is the same row
    assert history_statements(["列表滑起来很卡。帮我看看"], []) == ["列表滑起来很卡。"]


def test_a_statement_under_a_label_is_no_request() -> None:
    [kept] = memory_candidates(["commit messages: imperative mood, subject under 60 characters"])
    assert kept.text.startswith("commit messages:")
    assert memory_candidates(["run this: npm test --watch in the api folder"]) == []
