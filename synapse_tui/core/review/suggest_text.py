"""What the replacement finder reads in two texts: words, character n-grams, the values
that changed, the words that say "this is an update".

Every feature here is something a person can check by reading the two texts, so each can
be named in a suggestion's `why`. Pure functions over strings; no store, no model.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

# a word: letters and digits, with inner dots, slashes, dashes, colons and underscores kept,
# so versions (3.11), paths (src/app.py), dates (2025-03-17) and times (9:30) stay one token
_WORD = re.compile(r"[\w][\w./:@+-]*[\w]|[\w]", re.UNICODE)
_VALUE = re.compile(r"\d")  # a token with a digit is a value: a number, date, version, port
# words that carry no subject: never a reason to pair two facts (short, closed-class English)
STOP = frozenset(
    "a an the and or but of to in on at by for with from as is are was were be been being it its "
    "this that these those we our you your they their he she his her i me my not no so if then "
    "than too very can will would should could may might must do does did has have had all any "
    "each some such only also just there here when where which who what how into onto over "
    "under about after before up down out off via per".split()
)
# the newer text says it replaces something: the update words of the issue, as phrases
UPDATE_PHRASES = (
    "now",
    "no longer",
    "not anymore",
    "anymore",
    "switched",
    "switch to",
    "instead",
    "since",
    "moved to",
    "moved",
    "replaced",
    "replaces",
    "renamed",
    "deprecated",
    "changed to",
    "from now on",
    "going forward",
    "as of",
    "used to",
    "previously",
    "formerly",
    "updated",
    "migrated",
    "slipped",
    "taking over",
    "any more",
    "took over",
    "handed",
    "raised",
    "lowered",
    "changed",
    "became",
)
# the words of those phrases: a pair differing only in these restates, it does not replace
UPDATE_WORDS = frozenset(w for p in UPDATE_PHRASES for w in p.split()) | {"took", "handed", "moved", "takes"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_PHRASE = re.compile(r"\b(" + "|".join(re.escape(p) for p in sorted(UPDATE_PHRASES, key=len)[::-1]) + r")\b")
# a label: what a bullet names before its colon or dash ("**Go version**: 1.21+", "`make test`
# - run the tests", "Path: ~/.archon", "**构建命令**：`make`"), up to 40 characters
_LABEL = re.compile(r"^\W*([^:：—–\n]{1,40}?)\W*(?::|：|—|–| - )")
_SEPARATED = re.compile(r":|：|—|–| - ")  # what `_LABEL` ends at: a text without one has no label
_NONE: frozenset[str] = frozenset()
GRAM = 3  # character trigrams: the plain baseline's unit, robust to inflection and typos


def normal(text: str) -> str:
    """Lower case, runs of white space as one space: what n-grams and equality compare."""
    return " ".join(text.lower().split())


def words(text: str) -> list[str]:
    """The text's words in order, lower case (values and paths kept whole)."""
    return _WORD.findall(text.lower())


def content(tokens: list[str]) -> frozenset[str]:
    """The words that name something: what blocking and word overlap use."""
    return frozenset([t for t in tokens if t not in STOP])


def grams(norm: str) -> frozenset[str]:
    padded = f" {norm} "
    # a set comprehension, read only afterwards: a third faster than building a frozenset
    return {padded[i : i + GRAM] for i in range(len(padded) - GRAM + 1)}  # type: ignore[return-value]


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return 2.0 * len(a & b) / (len(a) + len(b))


def values(tokens: list[str]) -> frozenset[str]:
    return frozenset(t for t in tokens if _VALUE.search(t))


def update_phrases(norm: str) -> frozenset[str]:
    found = _PHRASE.findall(norm)
    return frozenset(found) if found else _NONE  # most texts say none: one empty set for all


def label(text: str) -> str | None:
    """What the text names before its colon or dash, lower case, without emphasis marks."""
    m = _LABEL.match(text.strip())
    if m is None:
        return None
    return normal(m.group(1).strip("*_` ")) or None


@dataclass(frozen=True, slots=True)
class Text:
    """One fact's text, read once: every feature of a pair is set arithmetic on two of these."""

    norm: str
    tokens: tuple[str, ...]
    content: frozenset[str]
    values: frozenset[str]
    updates: frozenset[str]
    label: str | None  # "go version" of "**Go version**: 1.21+"
    # character trigrams, made the first time a pair needs them: most facts of a large
    # store are never scored against another (a fifth of the indexing time)
    made_grams: frozenset[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, text: str) -> Text:
        norm = normal(text)
        low = norm.lower()
        tokens = _WORD.findall(low)  # `words(norm)`
        return cls(
            norm,
            tuple(tokens),
            content(tokens),
            values(tokens) if _VALUE.search(low) else _NONE,  # most texts hold no digit
            update_phrases(norm),
            label(text) if _SEPARATED.search(text) else None,  # a label needs its separator
        )

    @property
    def grams(self) -> frozenset[str]:
        made = self.made_grams
        if made is None:
            made = grams(self.norm)
            object.__setattr__(self, "made_grams", made)
        return made


@dataclass(frozen=True, slots=True)
class Pair:
    """What two texts share and where they differ, as the score and `why` read it."""

    chars: float  # character-trigram Dice
    words: float  # content-word Jaccard
    kept: float  # share of the older text's content words the newer keeps
    changed_values: tuple[frozenset[str], frozenset[str]]  # values only in old, only in new
    new_updates: frozenset[str]  # update words the newer says and the older does not
    identical: bool
    restated: bool  # the same naming words and values, only update words apart: a restatement
    other_date: bool  # a date swapped for another and no update word: another dated event
    same_label: str | None  # both name this before a colon or dash: one key, a new value


def compare(old: Text, new: Text, chars: float | None = None) -> Pair:
    """The pair's features; `chars`, their trigram Dice when already known."""
    shared = old.content & new.content
    union = old.content | new.content
    return Pair(
        chars=dice(old.grams, new.grams) if chars is None else chars,
        words=len(shared) / len(union) if union else 1.0,
        kept=len(shared) / len(old.content) if old.content else 1.0,
        changed_values=(old.values - new.values, new.values - old.values),
        new_updates=new.updates - old.updates,
        identical=old.norm == new.norm,
        restated=_restates(old, new),
        other_date=not new.updates
        and any(_DATE.match(v) for v in old.values - new.values)
        and any(_DATE.match(v) for v in new.values - old.values),
        same_label=old.label if old.label is not None and old.label == new.label else None,
    )


RESTATE_EXTRA = 2  # at most this many new naming words in a restatement


def _restates(old: Text, new: Text) -> bool:
    """The newer says again what the older said: both phrased as a change ("now", "moved"),
    the same values, at most `RESTATE_EXTRA` naming words besides update words in one and
    not the other ("X is now the QA lead" / "X moved from data engineer to QA lead"). Texts differing only in
    punctuation or layout are an edit of the wording, not a restatement."""
    if old.content == new.content or old.values != new.values:
        return False
    if not (old.updates and new.updates) or old.updates == new.updates:
        return False
    return len((old.content ^ new.content) - UPDATE_WORDS) <= RESTATE_EXTRA


def _aligned(old: str, new: str) -> list[tuple[bool, str, str]]:
    """Both texts as aligned runs (differs, the older's text, the newer's): the words one
    has and the other does not, aligned by longest common runs (difflib, deterministic).
    White space is kept, so each side's runs join back into its text."""
    a, b = _split(old), _split(new)
    ka, kb = [w.lower() for w in a], [w.lower() for w in b]
    # the words both begin and end with are aligned as they stand: the matcher (quadratic
    # in what it is given) only sees the middle, where the texts differ
    n = min(len(ka), len(kb))
    head = 0
    while head < n and ka[head] == kb[head]:
        head += 1
    tail = 0
    while tail < n - head and ka[-1 - tail] == kb[-1 - tail]:
        tail += 1
    runs = [(False, "".join(a[:head]), "".join(b[:head]))] if head else []
    matcher = difflib.SequenceMatcher(
        None, ka[head : len(ka) - tail], kb[head : len(kb) - tail], autojunk=False
    )
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        runs.append((op != "equal", "".join(a[head + i1 : head + i2]), "".join(b[head + j1 : head + j2])))
    if tail:
        runs.append((False, "".join(a[len(a) - tail :]), "".join(b[len(b) - tail :])))
    return runs


def changed_spans(old: str, new: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """Both texts as runs of (text, differs): the words one has and the other does not
    (`_aligned`); the runs of each join back into its text."""
    runs = _aligned(old, new)
    left = [(a, differs and bool(a.strip())) for differs, a, _ in runs if a]
    right = [(b, differs and bool(b.strip())) for differs, _, b in runs if b]
    return left, right


def first_change(old: str, new: str, limit: int = 40) -> tuple[str, str] | None:
    """The first place the two texts differ, each side trimmed: ('Fridays', 'Tuesdays'),
    ('', 'Integration of') for words added in front."""
    for differs, a, b in _aligned(old, new):
        if differs and (a.strip() or b.strip()):
            return _trim(a.strip(), limit), _trim(b.strip(), limit)
    return None


def _split(text: str) -> list[str]:
    return re.findall(r"\s+|[^\s]+", text)


def _trim(s: str, limit: int) -> str:
    return s if len(s) <= limit else s[: limit - 1] + "…"
