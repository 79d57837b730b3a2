"""The stubs' own logic, checked without the real server or hosts (fast, always runs).

The extraction DSL is a contract with OpenViking's restricted-Python parser, and the host
stubs' turn classification is a contract with the hosts' request shapes (checked here on the
genuine captures in ``tests/fixtures/host-samples``).
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import httpx
import pytest

from tests.support import host_stubs, model_stub

CONVERSATION_PROMPT = """## Conversation History
**Session Time:** 2026-11-22 08:02 - 2026-11-22 08:02 (Sunday)
Relative times (e.g., 'last week', 'next month') are based on Session Time, not today.

[0][user][user]: Remember: in this repo I always use tabs, never spaces
[1][assistant][assistant]: Noted.
Second line of the reply.
[2][user][user]: 我总是用中文写提交信息

After exploring, analyze the conversation and output ALL memory write/edit/delete operations \
in a single response. Do not output operations one at a time."""


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def sdk_calls(dsl: str) -> list[tuple[str, dict[str, object]]]:
    calls = []
    for statement in ast.parse(dsl).body:
        assert isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
        func = statement.value.func
        assert isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
        assert func.value.id == "sdk"
        kwargs = {k.arg or "": ast.literal_eval(k.value) for k in statement.value.keywords}
        calls.append((func.attr, kwargs))
    return calls


def test_tokenize_splits_words_and_single_cjk_characters():
    assert model_stub.tokenize("Remember: I use TABS, 中文!") == [
        "remember",
        "i",
        "use",
        "tabs",
        "中",
        "文",
    ]


def test_embeddings_are_unit_length_deterministic_and_overlap_sensitive():
    tabs = model_stub.embed("always use tabs never spaces")
    assert len(tabs) == model_stub.DEFAULT_DIMENSION
    assert math.isclose(math.sqrt(sum(v * v for v in tabs)), 1.0)
    assert tabs == model_stub.embed("always use tabs never spaces")
    query = model_stub.embed("tabs or spaces")
    unrelated = model_stub.embed("deploy the database to production")
    assert cosine(query, tabs) > cosine(query, unrelated) + 0.2
    chinese = model_stub.embed("提交信息用中文")
    assert cosine(chinese, model_stub.embed("中文提交")) > cosine(chinese, unrelated) + 0.2
    empty = model_stub.embed("", 8)
    assert math.isclose(sum(v * v for v in empty), 1.0)


def test_parse_conversation_reads_roles_and_multiline_bodies():
    assert model_stub.parse_conversation(CONVERSATION_PROMPT) == [
        ("user", "Remember: in this repo I always use tabs, never spaces"),
        ("assistant", "Noted.\nSecond line of the reply."),
        ("user", "我总是用中文写提交信息"),
    ]


def test_extraction_dsl_makes_one_preference_per_topic_and_commits():
    dsl = model_stub.build_extraction_dsl(model_stub.parse_conversation(CONVERSATION_PROMPT))
    calls = sdk_calls(dsl)
    assert [name for name, _ in calls] == ["create_preferences", "create_preferences", "commit"]
    english, chinese = calls[0][1], calls[1][1]
    assert english == {
        "user": "default",
        "topic": "tabs_spaces",
        "content": "- in this repo I always use tabs, never spaces",
    }
    assert chinese["topic"] == "我总是用"
    assert chinese["content"] == "- 我总是用中文写提交信息"


def test_extraction_dsl_falls_back_to_one_entity_without_preferences():
    calls = sdk_calls(
        model_stub.build_extraction_dsl(
            [("user", "The deploy target is Fly.io"), ("assistant", "ok")]
        )
    )
    assert [name for name, _ in calls] == ["create_entities", "commit"]
    assert calls[0][1]["category"] == "project"
    assert "Fly.io" in str(calls[0][1]["content"])
    assert sdk_calls(model_stub.build_extraction_dsl([])) == [("commit", {})]


def test_extraction_dsl_survives_quotes_in_user_text():
    calls = sdk_calls(model_stub.build_extraction_dsl([("user", 'I never use """ or \\ in names')]))
    assert calls[0][1]["content"] == '- I never use """ or \\ in names'


def test_statement_extraction_keeps_facts_and_preferences_and_drops_requests():
    conversation = [
        ("user", "Can you look at the flaky test? The staging database is read-only on Fridays."),
        ("assistant", "Sure."),
        ("user", "please run the linter"),
        ("user", "in this repo I always use tabs, never spaces"),
        ("user", "我们的测试环境数据库在每周五是只读的。"),
    ]
    calls = sdk_calls(model_stub.build_extraction_dsl(conversation, extraction="statements"))
    names = [name for name, _ in calls]
    assert names[-1] == "commit"
    contents = [str(args["content"]) for _name, args in calls[:-1]]
    assert any("read-only on Fridays" in c for c in contents), contents
    assert any("每周五是只读" in c for c in contents), contents
    assert any("always use tabs" in c for c in contents), contents
    assert not any("flaky test" in c or "linter" in c for c in contents), contents
    assert "create_preferences" in names and "create_entities" in names
    entity_names = [args["name"] for name, args in calls if name == "create_entities"]
    assert len(entity_names) == len(set(entity_names))  # one file each: no create conflicts
    # a conversation with nothing to keep commits nothing
    nothing = model_stub.build_extraction_dsl([("user", "run the tests")], extraction="statements")
    assert sdk_calls(nothing) == [("commit", {})]


# The shape of OpenViking 0.5.2's merge request (recorded from a real server in the rig).
MERGE_PATCHES = """# Memory File Patches

Patch 1
  category:
    @@ -0,0 +1 @@
    +project
  content:
    @@ -0,0 +1,2 @@
    +# godot_pin
    +- the project is pinned to Godot 4.3
  memory_type:
    @@ -0,0 +1 @@
    +entities
  name:
    @@ -0,0 +1 @@
    +godot_pin
  version:
    @@ -0,0 +1 @@
    +1

Patch 2
  content:
    @@ -1,2 +1,3 @@
     # old
    +- an edit of a file that exists
  memory_type:
    @@ -0,0 +1 @@
    +entities

Patch 3
  content:
    @@ -0,0 +1 @@
    +- tabs, never spaces
  memory_type:
    @@ -0,0 +1 @@
    +preferences
  topic:
    @@ -0,0 +1 @@
    +tabs
  user:
    @@ -0,0 +1 @@
    +default
"""


def test_merge_requests_create_each_new_patch_and_leave_edits_alone():
    body = {
        "messages": [
            {"role": "system", "content": "You are a memory patch merge agent. ..."},
            {"role": "user", "content": MERGE_PATCHES},
        ]
    }
    calls = sdk_calls(model_stub.chat_reply(body, "statements"))
    assert calls == [
        (
            "create_entities",
            {
                "category": "project",
                "content": "# godot_pin\n- the project is pinned to Godot 4.3",
                "name": "godot_pin",
            },
        ),
        (
            "create_preferences",
            {"content": "- tabs, never spaces", "topic": "tabs", "user": "default"},
        ),
        ("commit", {}),
    ]
    assert model_stub.chat_reply(body).startswith("Stub note")  # cue mode: unchanged


def test_chat_reply_answers_extraction_prompts_with_dsl_and_others_with_text():
    extraction = {
        "messages": [
            {"role": "system", "content": "You are a memory extraction and maintenance agent."},
            {"role": "user", "content": CONVERSATION_PROMPT},
        ]
    }
    assert model_stub.chat_reply(extraction).endswith("sdk.commit()")
    other = {
        "messages": [
            {"role": "system", "content": "You are a session note-taker"},
            {"role": "user", "content": "summarise this"},
        ]
    }
    assert model_stub.chat_reply(other) == "Stub note: summarise this"


def test_model_stub_serves_embeddings_chat_and_health_over_http():
    with model_stub.ModelStub(dimension=16) as stub:
        health = httpx.get(f"{stub.base_url}/health", timeout=5)
        assert health.json() == {"status": "ok"}
        embedded = httpx.post(
            f"{stub.api_base}/embeddings", json={"input": ["a b", "c"], "model": "m"}, timeout=5
        ).json()
        assert [d["index"] for d in embedded["data"]] == [0, 1]
        assert len(embedded["data"][0]["embedding"]) == 16
        chat = httpx.post(
            f"{stub.api_base}/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            timeout=5,
        ).json()
        assert chat["choices"][0]["message"]["content"] == "Stub note: hi"
    # Only chat requests are recorded: embeddings are many and uninteresting.
    assert [r.path for r in stub.requests] == ["/v1/chat/completions"]


def _sample(host_samples: Path, host: str, name: str) -> dict[str, object]:
    document = json.loads((host_samples / host / "stub-requests" / name).read_text())
    body = document["body"]
    assert isinstance(body, dict)
    return body


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("req-001-POST-v1_responses.json", "text"),
        ("req-002-POST-v1_responses.json", "shell"),
        ("req-003-POST-v1_responses.json", "tool_result"),
        ("req-004-POST-v1_responses.json", "compaction"),
        ("req-005-POST-v1_responses.json", "text"),
    ],
)
def test_codex_turn_kind_on_genuine_requests(host_samples: Path, name: str, kind: str):
    assert host_stubs.codex_turn_kind(_sample(host_samples, "codex", name))[0] == kind


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("req-001-POST-v1_messages.json", "text"),
        ("req-002-POST-v1_messages.json", "shell"),
        ("req-003-POST-v1_messages.json", "tool_result"),
        ("req-004-POST-v1_messages.json", "agent"),
        ("req-007-POST-v1_messages.json", "compaction"),
    ],
)
def test_claude_turn_kind_on_genuine_requests(host_samples: Path, name: str, kind: str):
    assert host_stubs.claude_turn_kind(_sample(host_samples, "claude", name))[0] == kind
