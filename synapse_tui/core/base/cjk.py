"""Chinese, Japanese and Korean: the scripts written without spaces between words, which
word search (store/cjk.py) and the Markdown reader's labels (a lead-in's length in words)
read otherwise than space-separated text."""

from __future__ import annotations

import re

# Han (with extension A, the compatibility ideographs and the supplementary planes' B-G),
# the iteration marks 々〆〇, hiragana, katakana (half-width too), bopomofo and Hangul
CJK_CHARS = (
    "\u1100-\u11ff\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3038-\u303c\u3040-\u30ff"
    "\u3100-\u312f\u3130-\u318f\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff\uf900-\ufaff\uff66-\uff9f\uffa0-\uffdc"
    "\U00020000-\U0003134f"
)
_CJK = re.compile(f"[{CJK_CHARS}]")
RUNS = re.compile(f"[{CJK_CHARS}]+|[^{CJK_CHARS}]+")  # CJK runs and what lies between them
_PIECES = re.compile(rf"[{CJK_CHARS}]+|[^\s{CJK_CHARS}]+")
CHARS_PER_WORD = 2  # a Chinese word is mostly one or two characters; Japanese kana run longer


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def word_count(text: str) -> int:
    """How many words the text holds: space-separated pieces, a run of CJK counted as a
    word every CHARS_PER_WORD characters (`下一步计划` is 3, `Next steps` 2)."""
    return sum(
        -(-len(piece) // CHARS_PER_WORD) if has_cjk(piece[0]) else 1 for piece in _PIECES.findall(text)
    )
