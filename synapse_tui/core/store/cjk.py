"""Chinese, Japanese and Korean in the word index: every fact holding a CJK substring.

FTS5's unicode61 tokenizer splits on spaces and punctuation, which CJK text seldom has: a
whole run of it (`チャートを作成する`, `使用React组件`) is one token, so a search for
`チャート` found only the facts where a run began with it. So the facts holding CJK also
have a row in a second FTS5 table, `facts_fts_cjk` (contentless, rowid = the fact's
position, as `facts_fts`), whose tokens are `grams` of the text: each CJK run as its
overlapping pairs of characters and then its last character alone (`チャート` -> `チャ ャー
ート ト`), and the letters and digits beside CJK in the same unicode61 token as words of
their own (`react`). A CJK search term is then a phrase of its pairs (`match`): adjacent
pairs only occur inside one run (the lone last character parts runs), so the phrase
matches exactly the facts holding the term; one character alone is a prefix (a pair
beginning with it, or a run's last). A plain word is searched here too, beside `facts_fts`:
`React` then finds `使用React组件` as well.

A store made before this table (schema 6) opened read-only has no such table: a CJK term is
then a substring scan of the facts' text (`LIKE`), slower on a large store but complete.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from synapse_tui.core.base.cjk import RUNS, has_cjk

TABLE = "facts_fts_cjk"
TOKEN = re.compile(r"[^\W_]+")  # unicode61's token characters: letters and digits
CREATE = f"CREATE VIRTUAL TABLE {TABLE} USING fts5(grams, content='', tokenize='ascii')"


def _fold(piece: str) -> str:
    """A non-CJK piece as unicode61 reads it: case folded, Latin diacritics removed."""
    folded = piece.casefold()
    if folded.isascii():
        return folded
    return "".join(c for c in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(c))


def _pairs(run: str) -> list[str]:
    return [run[i : i + 2] for i in range(len(run) - 1)]


def grams(text: str) -> str | None:
    """The tokens `facts_fts_cjk` holds for a fact's text, space-separated; None when the
    text holds no CJK (the fact has no row there)."""
    if not has_cjk(text):
        return None
    out: list[str] = []
    for token in TOKEN.findall(text):
        if not has_cjk(token):
            continue
        for piece in RUNS.findall(token):
            if has_cjk(piece):
                out += _pairs(piece)
                out.append(piece[-1])
            else:
                out.append(_fold(piece))
    return " ".join(out)


def match(term: str) -> str:
    """The FTS5 expression finding, in `facts_fts_cjk`, the facts holding `term` (one
    unicode61 token, case folded, matched as a prefix when it ends in `*`): a phrase of its
    pieces' tokens as `grams` gives them, the last one a prefix when it may continue (a
    lone CJK character, or a word when `*`). A word before CJK is matched whole."""
    prefix = term.endswith("*")
    pieces = RUNS.findall(term.removesuffix("*"))
    tokens: list[str] = []
    last_open = prefix
    for i, piece in enumerate(pieces):
        final = i == len(pieces) - 1
        if has_cjk(piece):
            if final:
                tokens += _pairs(piece) or [piece]
                last_open = len(piece) == 1
            else:
                tokens += [*_pairs(piece), piece[-1]]
        else:
            tokens.append(_fold(piece))
    phrase = '"' + " ".join(tokens).replace('"', '""') + '"'
    return phrase + (" *" if last_open else "")


def rows(facts: Iterable[tuple[int, str, str]]) -> list[tuple[int, str]]:
    """The rows (rowid, grams) `facts_fts_cjk` takes for facts (position, id, text): one
    for each fact whose text holds CJK."""
    return [(pos, g) for pos, _, text in facts if (g := grams(text)) is not None]


def like(term: str) -> str:
    """A LIKE pattern for the facts whose text holds `term` (its `*` dropped): the scan
    standing in for `facts_fts_cjk` in a store made before it."""
    body = term.removesuffix("*")
    return "%" + body.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
