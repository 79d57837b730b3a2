"""How common a search term is outside this store: the background a small store lacks.

IDF over a store of forty memories says "database" is rare because it occurs twice; any
English text says otherwise. So a term's specificity is capped by how common it is in
general English and in everyday software talk. The lists are general vocabulary, written
down once (most frequent English content words; words every codebase and work chat uses),
not words of any memory. They are compared with normalised terms (``text.terms``: lower
case, plural stripped), so they are stored the same way.
"""

from __future__ import annotations

from ovhooks.lexical.text import stem

# Everyday English beyond the stop words: weak evidence that two texts are about one thing.
GENERAL = frozenset(
    stem(w)
    for w in """
    able access across act action actually add added address again ago ahead allow almost
    alone along already although always amount another answer anyone anything anyway anywhere
    appear apply area around ask asked away back bad base basic become begin behind believe
    best better big bit block body book bottom box break bring broken build built business
    call called came care case cause certain chance change check child choose clear close
    come coming common complete consider continue control copy correct cost could couple
    course cover create current cut daily date day deal decide default definitely detail
    different difficult direct do done double down during early easy either else end enough
    entire even event ever every everyone everything exact example except expect extra fact
    fail fall far fast feel few field fill final find fine first fix follow force form found
    free full fun future general give given go going good great group guess half hand happen
    hard head hear help high hold home hope hour however idea important include inside
    instead interest issue item keep kind know known large last late later lead learn least
    leave left less level life light like likely line list little live long look lot love low
    main major make making many matter maybe mean meant member mention might mind minute miss
    moment money month morning move much must name near need never new next nice night none
    normal note nothing notice number often old one open order original others outside part
    particular pass past people per person pick piece place plan play point possible post
    power pretty probably problem process provide pull put question quick quickly quite
    rather read ready real really reason recent remember require rest result return right
    room round rule run same save say second see seem seen send sense set several short show
    side sign simple since single small someone something sometimes soon sort sound start
    state still stop story sure system take talk team tell term test than thing think though
    thought three time today together told took top total toward true try turn two type
    understand unless upon use used useful user usual usually value want way week well went
    whatever whether whole without word work world worry write wrong year yet
    """.split()  # noqa: SIM905
)

# Words every software conversation uses: weak evidence on their own, fine beside others.
SOFTWARE = frozenset(
    stem(w)
    for w in """
    api app application argument array async await backend bash branch bug build cache call
    class cli client code command commit config configuration console container data
    database debug deploy deployment dependency dev directory doc docs documentation element
    endpoint env environment error exception feature field file fix flag folder format
    frontend function handler header host http image import input install instance interface
    job json key lib library link lint local log logic machine merge message method model
    module name object option output package page parameter parse patch path performance
    pipeline port production program project pull push query queue release repo repository
    request response result route run script sdk server service session setting setup shell
    source stack staging status step string style support sync table tag task test text
    thread token tool type update upgrade url user utils value variable version view web
    window worker workflow
    pdf readme csv html css sql ram cpu gpu os ui ux ci cd pr mr db vm ip dns ssh ssl tls jwt
    aws gcp yaml toml xml svg png jpg gif zip tar usb ssd gb mb kb tb ms utc gmt faq todo
        """.split()  # noqa: SIM905
)

# Chinese pairs every text uses (common words, not single function characters).
CJK_COMMON = frozenset(
    """
    一个 一下 一些 一样 一起 不是 不能 不会 不要 没有 可以 可能 需要 应该 已经 现在 时候 因为
    所以 如果 但是 还是 或者 就是 这样 那样 怎么 什么 为什么 问题 东西 事情 时间 地方 今天
    明天 昨天 之前 之后 以后 以前 然后 其实 知道 觉得 认为 看看 一直 开始 结束 使用 用于
    进行 通过 进入 出现 发现 处理 功能 文件 代码 项目 数据 系统 服务 接口 测试 配置 版本 环境
    运行 问下 帮我 请问 一般 比较 非常 特别 直接 方法 方式 情况 部分 内容 信息 原因 结果
    """.split()  # noqa: SIM905
)

GENERAL_CAP = 0.3
SOFTWARE_CAP = 0.6


def background_cap(term: str) -> float:
    """The most a match on ``term`` can weigh, whatever the store says (1.0: no cap)."""
    if term in GENERAL or term in CJK_COMMON:
        return GENERAL_CAP
    if term in SOFTWARE:
        return SOFTWARE_CAP
    return 1.0
