"""Everyday software words in English and Chinese, so a question in one language meets a
memory stated in the other (a store without embeddings has no other bridge).

Applied to the query only (``expand``): a prompt that names an entry in either language
asks for the whole entry, both languages and the synonyms on each side ("prod" also asks
for "production" and 生产|线上; 线上 for "prod" and 生产). Nothing is re-indexed, so a
store written before this list benefits too. The words are general vocabulary of work talk,
not words of any memory; most are capped as common words by ``common.background_cap``, so a
translation is evidence only beside others, never a match on its own.
"""

from __future__ import annotations

# English word(s) = Chinese word(s); "|" separates synonyms on either side.
_PAIRS = """
port = 端口
version = 版本
database|db = 数据库
table = 数据表|建表
field|column = 字段
index = 索引
query = 查询
read-only|readonly = 只读
migration = 迁移
cluster = 集群
server = 服务器
service = 服务
production|prod = 生产|线上
staging = 预发|测试环境
environment|env = 环境
variable = 变量
config|configuration|setting = 配置
deploy|deployment|release = 部署|发布|上线
rollback = 回滚
branch = 分支
commit = 提交
merge = 合并
review = 评审|审查
test = 测试
log|logging = 日志
error = 错误|报错
timeout = 超时
slow = 慢
cache = 缓存
queue = 队列
job|task = 任务
schedule|scheduler|cron = 定时|调度
password = 密码
secret|key = 密钥
token = 令牌
certificate|cert = 证书
permission = 权限
user = 用户
order = 订单
payment|pay = 支付
refund = 退款
invoice = 发票
report = 报表|报告
chart = 图表
component = 组件
page = 页面
frontend = 前端
backend = 后端
api|endpoint|interface = 接口
request = 请求
response = 响应|返回
library = 库
dependency|dependencies = 依赖
package = 包
build = 构建
script = 脚本
command = 命令
terminal|shell = 终端
editor = 编辑器
indentation = 缩进
format|formatting = 格式
lint|linter = 检查
comment = 注释
document|docs|documentation = 文档
file = 文件
directory|folder = 目录
path = 路径
image = 镜像|图片
container = 容器
memory|ram = 内存
disk = 磁盘
laptop = 笔记本
timezone = 时区
timestamp = 时间戳
date = 日期
friday = 周五
monday = 周一
night|nightly = 夜间|晚上
morning = 早上
emoji = 表情
chinese = 中文
english = 英文
alert|alerting = 告警
monitor|monitoring = 监控
trace|tracing = 链路|调用链
owner = 负责人
approve|approval|sign-off = 审批
naming|name = 命名|名字
upload = 上传
download = 下载
export = 导出
import = 导入
backup = 备份
restore = 恢复
flag = 开关
feature = 功能
bug = 缺陷|问题
fix = 修复
function = 函数
method = 方法
module = 模块
code = 代码
framework = 框架
firmware = 固件
driver = 驱动
plugin|extension = 插件|扩展
parameter|param|argument = 参数
thread = 线程
process = 进程
async|asynchronous = 异步
compile|compiler = 编译
debug|debugging = 调试
crash = 崩溃
exception = 异常
warning = 警告
random = 随机
seed = 种子
encrypt|encryption = 加密
performance = 性能
latency = 延迟|时延
network = 网络
proxy = 代理
domain = 域名
storage = 存储
message = 消息
notification|notify = 通知
email|mail = 邮件
subscribe|subscription = 订阅
topic = 话题|主题
incident|outage = 故障|事故
ticket = 工单
upgrade|escalate|escalation = 升级
meeting = 会议
requirement = 需求
design = 设计
priority = 优先级
deadline = 截止
customer|client = 客户
contract = 合同
budget = 预算
account = 账号|账户
login = 登录
screen|display = 屏幕|显示器
refresh = 刷新
font = 字体
layout = 布局
model = 模型
training = 训练
dataset = 数据集
experiment = 实验
metric = 指标
threshold = 阈值
batch = 批量|批次
team = 团队
colleague|coworker = 同事
holiday|vacation = 假期|休假
weekend = 周末
"""


class _Entry:
    """One line of the list: its English terms and Chinese words; the Chinese words' bigram
    terms are made when a prompt first names the entry (most prompts name none of ~170)."""

    __slots__ = ("_chinese_terms", "chinese", "english")

    def __init__(self, english: list[str], chinese: list[str]) -> None:
        self.english = english
        self.chinese = chinese
        self._chinese_terms: list[str] | None = None

    def chinese_terms(self) -> list[str]:
        if self._chinese_terms is None:
            from ovhooks.lexical.text import terms

            self._chinese_terms = [t for w in self.chinese for t in terms(w)]
        return self._chinese_terms


_compiled: list[_Entry] = []
# English term -> the entries that hold it (their indexes in ``_compiled``).
_by_term: dict[str, list[int]] = {}


def _entries() -> list[_Entry]:
    """The entries, parsed on first use."""
    if not _compiled:
        from ovhooks.lexical.text import terms

        for line in _PAIRS.strip().splitlines():
            english, _, chinese = line.partition("=")
            en = list(dict.fromkeys(t for word in english.split("|") for t in terms(word.strip())))
            zh = [w.strip() for w in chinese.split("|") if w.strip()]
            for term in en:
                _by_term.setdefault(term, []).append(len(_compiled))
            _compiled.append(_Entry(en, zh))
    return _compiled


def expand(text: str, found: list[str]) -> list[str]:
    """Terms to add to the query ``found`` (terms of ``text``): the other language's words,
    in the order their sources appear in the prompt (so neighbours stay neighbours)."""
    entries = _entries()
    have = set(found)
    # Where the prompt names each entry: its first English term's place among ``found``
    # (a term's last place, as the position map keeps it), else where a Chinese word of it
    # starts in the text.
    at: dict[int, int] = {}
    for term, place in {t: i for i, t in enumerate(found)}.items():
        for index in _by_term.get(term, ()):
            at[index] = min(place, at.get(index, place))
    if not text.isascii():
        for index, entry in enumerate(entries):
            if index not in at:
                where = min((text.find(w) for w in entry.chinese if w in text), default=-1)
                if where >= 0:
                    at[index] = where
    extra: list[tuple[int, int, str]] = []
    for index, where in at.items():
        # The whole entry, both languages: "prod" also asks for "production", "cron"
        # for "schedule", 线上 for 生产.
        entry = entries[index]
        named = [*entry.english, *entry.chinese_terms()]
        extra.extend((where, n, t) for n, t in enumerate(named))
    ordered = [t for _at, _n, t in sorted(extra)]
    return [t for t in dict.fromkeys(ordered) if t not in have]


def other_language_words(text: str, found: list[str]) -> list[str]:
    """The other language's words of every entry ``text`` names (``found``: its terms), as
    written in the list: whole words, not the bigram terms ``expand`` gives, for a query an
    embedding model reads. A Chinese prompt gets the English side ("production cluster" for
    生产集群), any other prompt the Chinese side."""
    from ovhooks.lexical.text import script_of

    chinese_prompt = script_of(text) == "zh"
    have = set(found)
    words: list[str] = []
    for entry in _entries():
        if chinese_prompt and any(w in text for w in entry.chinese):
            words.extend(entry.english)
        elif not chinese_prompt and any(t in have for t in entry.english):
            words.extend(entry.chinese)
    return list(dict.fromkeys(words))
