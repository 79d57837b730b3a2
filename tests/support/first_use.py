"""A thousand ordinary memories for the first-use canonical test: what many users tell an
agent to remember (ports, hosts, owners, deadlines, tools, commit rules, habits, facts about
themselves), made deterministically from templates, none about indentation or whitespace."""

from __future__ import annotations

import random

PROJECTS = (
    "billing-api", "storefront", "infra", "mobile-app", "data-pipeline", "auth-service",
    "admin-panel", "search", "notifications", "checkout", "analytics", "docs-site",
    "payments", "inventory", "crm-sync", "reporting", "gateway", "scheduler", "media-upload",
    "chat-widget", "订单服务", "支付网关", "小程序", "数据平台", "风控系统",
)  # fmt: skip
PEOPLE = (
    "Priya", "Marco", "Aiko", "Tomasz", "Greta", "Hiroshi", "Lena", "Oskar", "Rahel", "Jamal",
    "Ingrid", "Kevin", "Nadia", "Felix", "Sofia", "老王", "小李", "张伟", "陈浩", "林晓",
)  # fmt: skip
TOOLS = (
    "pnpm", "poetry", "uv", "cargo", "gradle", "maven", "bun", "yarn", "pip-tools", "nix",
    "make", "just", "tox", "nox", "bazel",
)  # fmt: skip
DBS = ("postgres", "mysql", "redis", "mongodb", "clickhouse", "elasticsearch", "kafka", "rabbitmq")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September")
CITIES = ("Berlin", "Lisbon", "Tokyo", "Toronto", "Shanghai", "Nairobi", "Austin", "Warsaw")
TEAMS = ("platform", "growth", "payments", "mobile", "data", "security", "support tooling")

TEMPLATES = (
    "the {db} for {project} runs on port {port} locally",
    "{person} owns {project}, ask them before changing its public API",
    "{project} has to ship by {month} {day}",
    "use {tool} for {project}, never anything else",
    "staging for {project} is {slug}-stg.internal.example.com",
    "commit messages in {project} start with the ticket key, like {key}-{n}: summary",
    "{person} reviews every migration in {project}",
    "the {project} CI pipeline takes about {n} minutes, don't wait on it for small changes",
    "I'm based in {city}, so schedule meetings in my afternoon",
    "{project} logs go to the {team} team's dashboard in Grafana",
    "never run the seed script against the production {db}",
    "{project} reads its feature flags from flags/{slug}.yaml at startup",
    "on-call for {project} this month is {person}",
    "the API key for {project} lives in the vault path secret/{slug}/api",
    "{project}'s nightly job starts at {hour}:30 UTC",
    "I prefer short answers with code first and the explanation after",
    "{person} is on leave until {month} {day}, send {project} questions to {person2}",
    "the {db} backup for {project} is taken every {n} hours",
    "{project} pins Python {py} in .python-version",
    "release branches for {project} are named release/{year}.{n}",
    "{project} 的测试环境在 10.{n}.{day}.{hour}，账号找 {person} 要",
    "{project} 的接口文档在 docs/{slug}/api.md，改接口要同步更新",
    "{person} 负责 {project} 的上线审批，周五不发版",
    "{project} 要在 {m} 月 {day} 号前完成联调",
    "{project} 用 {db} 做缓存，过期时间默认 {n} 分钟",
    "the {team} team's standup is at {hour}:15 in the {slug} channel",
    "in {project} dates are stored in UTC and shown in the user's zone",
    "{project} error pages must never show stack traces to users",
    "my GitHub handle is {handle}, tag me on {project} PRs",
    "{project} uses semantic versioning; breaking changes need a major bump",
)  # fmt: skip

# Nothing in the thousand may be about indentation, tabs or spaces.
FORBIDDEN = ("indent", "tab", "space", "缩进", "空格", "whitespace")


def others(count: int = 1000, seed: int = 39) -> list[str]:
    """``count`` distinct memories, the same ones on every run."""
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < count:
        project = rng.choice(PROJECTS)
        text = rng.choice(TEMPLATES).format(
            db=rng.choice(DBS),
            project=project,
            slug="".join(c for c in project if c.isascii() and (c.isalnum() or c == "-")) or "svc",
            port=rng.randrange(3000, 9999),
            person=rng.choice(PEOPLE),
            person2=rng.choice(PEOPLE),
            tool=rng.choice(TOOLS),
            month=rng.choice(MONTHS),
            m=rng.randrange(1, 13),
            day=rng.randrange(1, 29),
            key=project[:4].upper(),
            n=rng.randrange(2, 60),
            city=rng.choice(CITIES),
            team=rng.choice(TEAMS),
            hour=rng.randrange(6, 22),
            py=rng.choice(("3.10", "3.11", "3.12")),
            year=rng.randrange(2024, 2027),
            handle=f"dev{rng.randrange(100, 999)}",
        )
        if not any(word in text.lower() for word in FORBIDDEN):
            out[text] = None
    return list(out)
