"""One fact's score as it leaves the core: the row every front-end hands out.

`ScoreRow` is the `score --json` object (SPEC 6), which MCP results and `show --json` start
from; `ScoreRecord` is that score with the inputs a replay needs, as an audit entry keeps
it in `score_before` (SPEC 8). Their field lists are written here once: the JSON, the MCP
output schema, the columns `--sort` takes and the fields the filter language compares are
read from them, and a test holds the rest of the code to them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import numpy as np

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.store.arrays import FactArrays
from synapse_tui.core.trust.score import BANDS, GUIDANCE, TIERS, Scores

# the coded columns: a row names the label, `Scores` (and sorting) keeps its index
LABELS: dict[str, tuple[str, ...]] = {"band": BANDS, "guidance": GUIDANCE, "tier": TIERS}


@dataclass(frozen=True, slots=True)
class ScoreFields:
    """The fields of one fact's score, in SPEC 6's order: the `score --json` object's, and
    the first of what `show` explains (`explanation.Explanation` adds the rest)."""

    id: str
    trust: float
    band: str
    confidence: float
    freshness: float
    supersession: float
    gate: float
    b: float
    d: float
    u: float
    guidance: str
    k: int
    B: float
    tier: str
    flags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ScoreRow(ScoreFields):
    """The `score --json` object of one fact, full floats; `to_json` keeps SPEC 6's order."""

    @classmethod
    def of(cls, fact_id: str, sc: Scores, i: int) -> ScoreRow:
        """Fact i of `sc`, named `fact_id`."""
        values = row_json(fact_id, sc, i)
        values["flags"] = tuple(values["flags"])
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in NAMES}
        out["flags"] = list(self.flags)
        return out


NAMES: tuple[str, ...] = tuple(f.name for f in fields(ScoreRow))
# the fields read from the `Scores` array of the same name (id and flags are not)
COLUMNS: tuple[str, ...] = tuple(n for n in NAMES if n not in ("id", "flags"))
# the fields that are numbers: what `--sort` orders by and the filter language compares
NUMBERS: tuple[str, ...] = tuple(n for n in COLUMNS if n not in LABELS)


def row_json(fact_id: str, sc: Scores, i: int) -> dict[str, Any]:
    """`ScoreRow.of(fact_id, sc, i).to_json()` without the object in between: MCP builds
    one per result, and the object would triple the cost."""
    out: dict[str, Any] = {}
    for name in NAMES:
        if name == "id":
            out[name] = fact_id
        elif name == "flags":
            out[name] = sc.flag_names(i)
        else:
            value = getattr(sc, name).item(i)  # a Python float or int
            out[name] = LABELS[name][value] if name in LABELS else value
    return out


def score_json(ids: Sequence[str], sc: Scores, at: np.ndarray) -> list[dict[str, Any]]:
    """`ScoreRow.of(ids[i], sc, i).to_json()` for every position i in `at`, built column-wise
    (one `tolist` per array, not one conversion per value): `score --json` prints a million."""
    at_list = at.tolist()
    cols: list[list[Any]] = []
    for name in NAMES:
        if name == "id":
            cols.append([ids[i] for i in at_list])
        elif name == "flags":
            flagged = np.flatnonzero(sc.flags[at]).tolist()
            named = {j: sc.flag_names(at_list[j]) for j in flagged}
            cols.append([named.get(j) or [] for j in range(len(at_list))])
        elif name in LABELS:
            labels = LABELS[name]
            cols.append([labels[x] for x in getattr(sc, name)[at].tolist()])
        else:
            cols.append(getattr(sc, name)[at].tolist())
    return _rows_from_columns(*cols)


def _dict_builder(names: tuple[str, ...]) -> Callable[..., list[dict[str, Any]]]:
    """`lambda c0, c1, ...: [{names[0]: v0, ...} for v0, ... in zip(c0, c1, ...)]`, the keys
    written out: a dict display builds a row in half the time `dict(zip(names, values))`
    takes (dataclasses write their `__init__` the same way; each key is a repr, so safe)."""
    cols = ", ".join(f"c{j}" for j in range(len(names)))
    values = ", ".join(f"v{j}" for j in range(len(names)))
    display = ", ".join(f"{name!r}: v{j}" for j, name in enumerate(names))
    return eval(f"lambda {cols}: [{{{display}}} for {values} in zip({cols})]")


_rows_from_columns = _dict_builder(NAMES)


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    """A fact's score and the inputs it was computed from (r, s, tiers, reinforcements), so
    a verdict can be replayed under other constants (SPEC 11.3); `to_json` is SPEC 8's
    `score_before`."""

    score: ScoreRow
    r: int
    s: int
    declared_tier: str
    reinforcement_count: int  # n, creation included (SPEC 4)
    last_reinforced_at: str

    KEYS: ClassVar[tuple[str, ...]] = (
        "trust",
        "band",
        "confidence",
        "freshness",
        "supersession",
        "gate",
        "r",
        "s",
        "declared_tier",
        "tier",
        "reinforcement_count",
        "last_reinforced_at",
        "k",
        "B",
    )

    @classmethod
    def of(cls, fact_id: str, sc: Scores, a: FactArrays, i: int) -> ScoreRecord:
        """Fact i of `sc` and of the arrays it was scored from."""
        events = a.events_of(i)
        o1 = int(a.o1_count[i])  # the O(1) form stores n and only its creation time
        return cls(
            ScoreRow.of(fact_id, sc, i),
            r=int(a.r[i]),
            s=int(a.s[i]),
            declared_tier=TIERS[a.declared[i]],
            reinforcement_count=o1 or len(events),
            last_reinforced_at=format_time(float(events.max())),
        )

    def to_json(self) -> dict[str, Any]:
        return {key: getattr(self if key in _INPUTS else self.score, key) for key in self.KEYS}


_INPUTS = frozenset(f.name for f in fields(ScoreRecord)) - {"score"}
