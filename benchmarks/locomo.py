"""LoCoMo (a paper's data set) as memories and questions, for the recall benchmarks (issue 43).

The data set is not shipped with us. Get `data/locomo10.zip` (or `locomo10.json`) of the
snap-research/locomo repository and name it with `--locomo PATH`; `load(path)` reads either.

What it holds, as read here: ten long chats between two people, each in up to 35 dated
sessions of turns (`speaker`, `dia_id` such as `D3:12`, `text`; a shared photo's caption
is left out, as mem0's evaluation leaves it), and about 200 questions per chat, each with `evidence` (the turns
that answer it) and a `category`: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial (a question about something never said; left out, as mem0's evaluation does).

A turn becomes one memory written `Speaker: text`, stamped with its session's date. A question's truth for recall@k is its
evidence: found when any of its turns is among the first k. Evidence ids come in a few
spellings (`D:11:26`, `D30:05`, `D8:6; D9:17`): they are read as turn ids, and a question
none of whose evidence names a turn is left out (4 of 1,540 have no evidence at all).

The split, fixed here so that no figure is tuned on the held-out part: DEV is three of
the ten chats (383 of the 1,536 questions), held out the other seven (1,153).
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}  # 5: adversarial
DEV = ("conv-26", "conv-30", "conv-41")
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")
_SESSION = re.compile(r"session_(\d+)$")


@dataclass(frozen=True)
class Turn:
    id: str  # conversation:dia_id, e.g. conv-26:D3:12
    conversation: str
    text: str
    at: datetime


@dataclass(frozen=True)
class Question:
    conversation: str
    category: str
    text: str
    evidence: tuple[str, ...]

    @property
    def split(self) -> str:
        return "dev" if self.conversation in DEV else "held-out"


def _samples(path: Path) -> list[dict]:
    """The data set's ten samples, from locomo10.json or from a zip holding it (or, as the
    repository's zip does, one JSON file per sample named by its number)."""
    if path.suffix != ".zip":
        return json.loads(path.read_text(encoding="utf-8"))
    with zipfile.ZipFile(path) as z:
        names = sorted(n for n in z.namelist() if n.endswith(".json"))
        whole = [n for n in names if Path(n).name == "locomo10.json"]
        if whole:
            return json.loads(z.read(whole[0]))
        out = []
        for n in names:
            sample = json.loads(z.read(n))
            sample.setdefault("sample_id", f"conv-{Path(n).stem}")
            out.append(sample)
        return out


def _when(stamp: str) -> datetime:
    """`1:56 pm on 8 May, 2023` as a UTC instant."""
    return datetime.strptime(stamp.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _turns(conv: str, sample: dict) -> list[Turn]:
    chat = sample.get("conversation", sample)  # locomo10.json nests it; the zip's files do not
    out = []
    for key, turns in chat.items():
        m = _SESSION.match(key)
        if not m or not isinstance(turns, list):
            continue
        at = _when(chat[f"{key}_date_time"])
        for t in turns:
            text = f"{t['speaker']}: {t['text']}"  # as mem0's own LoCoMo evaluation adds a turn
            turn_id = "D{}:{}".format(*_EVIDENCE.match(t["dia_id"]).groups())  # type: ignore[union-attr]
            out.append(Turn(f"{conv}:{turn_id}", conv, text, at))
    return out


def _evidence(conv: str, raw: list[str], known: set[str]) -> tuple[str, ...]:
    found = [f"{conv}:D{s}:{n}" for item in raw for s, n in _EVIDENCE.findall(item)]
    return tuple(dict.fromkeys(e for e in found if e in known))


def load(path: Path) -> tuple[list[Turn], list[Question]]:
    """Every turn as a memory and every question of categories 1-4 with evidence."""
    turns: list[Turn] = []
    questions: list[Question] = []
    for sample in _samples(path):
        conv = str(sample["sample_id"])
        mine = _turns(conv, sample)
        known = {t.id for t in mine}
        turns += mine
        for qa in sample["qa"]:
            category = CATEGORIES.get(int(qa.get("category", 0)))
            evidence = _evidence(conv, [str(e) for e in qa.get("evidence", [])], known)
            if category and evidence:
                questions.append(Question(conv, category, str(qa["question"]), evidence))
    return turns, questions
