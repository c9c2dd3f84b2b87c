"""Did low trust predict what happened next? The backtest of SPEC 11.4: the store as it was
at T (the browser's as-of view), and what became of each fact alive then within the horizon,
from the store's own history. On a store imported from mem0 this asks, of the agent's own
record, whether the memories it later rewrote or deleted were the ones the score doubted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from synapse_tui.core.base.clock import format_time, parse_time
from synapse_tui.core.review.asof import memory_as_of
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.triage import RETRACT
from synapse_tui.core.trust import reliability as rel
from synapse_tui.core.trust.history_fit import MIN_LIVE  # the first instant has this many live facts
from synapse_tui.core.trust.score import DAY

# what became of a fact alive at T, first event in the window wins; y = 1 only for survived
OUTCOMES = ("replaced", "deleted", "contradicted", "survived")
_KIND = {0: rel.REPLACED, 1: rel.WRONG, 2: rel.WRONG, 3: rel.HOLDS}


@dataclass(frozen=True)
class Backtest:
    at: float
    horizon_days: float
    outcome: np.ndarray  # index into OUTCOMES, per fact alive at T
    trust: np.ndarray  # its trust as of T
    positions: np.ndarray  # the facts alive at T
    history_days: float = 0.0  # from the store's first fact to T: the ages the score could tell apart

    def counts(self) -> dict[str, int]:
        n = np.bincount(self.outcome, minlength=len(OUTCOMES))
        return {name: int(c) for name, c in zip(OUTCOMES, n, strict=True)}

    def to_json(self) -> dict[str, Any]:
        y = (self.outcome == 3).astype(np.float64)
        kind = np.array([_KIND[o] for o in range(4)], dtype=np.int8)[self.outcome]
        h = self.horizon_days
        return {
            "at": format_time(self.at),
            "horizon_days": int(h) if float(h).is_integer() else h,
            "facts": len(self.trust),
            **self.counts(),
            "bins": rel.bins(self.trust, kind),
            "log_loss": rel.log_loss(self.trust, y),
            "auc": rel.auc(self.trust, y),
        }


def _first(times: np.ndarray, positions: list[int], when: list[float]) -> None:
    if positions:
        np.minimum.at(times, np.asarray(positions, dtype=np.int64), np.asarray(when))


def _events(memory: Memory, after: float, until: float) -> list[tuple[np.ndarray, ...]]:
    """What ended facts in (after, until], per outcome (replaced, deleted, contradicted):
    (positions, instants). Read once for a whole history: every instant then filters."""
    a = memory.arrays
    index = memory.index
    n = len(memory)
    made = np.flatnonzero((a.created > after) & (a.created <= until) & (a.supersedes >= 0))
    rep_pos, rep_at = [a.supersedes[made]], [a.created[made]]
    out: list[tuple[np.ndarray, ...]] = []
    hits = [
        (index[f], t) for f, t in memory.store.audit.live_entries("supersede", after, until) if f in index
    ]
    rep_pos.append(np.array([i for i, _ in hits], dtype=np.int64))
    rep_at.append(np.array([t for _, t in hits], dtype=np.float64))
    out.append((np.concatenate(rep_pos).astype(np.int64), np.concatenate(rep_at).astype(np.float64)))
    gone = [(pos, t) for pos, t in memory.store.review.deleted_at() if pos < n and after < t <= until]
    out.append(
        (np.array([p for p, _ in gone], dtype=np.int64), np.array([t for _, t in gone], dtype=np.float64))
    )
    out.append(_contradictions(memory, after, until))
    return out


def _contradictions(memory: Memory, after: float, until: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The live contradict entries in (after, until] (SPEC 11.4's `contradicted`): positions,
    instants, and when the same actor took each back by a live `retract` (a source whose
    claim is no longer contested, core/ingest/adapters/sync.py; inf when never): a
    contradiction taken back within a window is not the fact contradicted in it."""
    audit = memory.store.audit
    index = memory.index
    hits = [(f, t) for f, t in audit.live_entries("contradict", after, until) if f in index]
    retracted = {f for f, _ in audit.live_entries(RETRACT, after, until)} & {f for f, _ in hits}
    rows = [(index[f], t, math.inf) for f, t in hits if f not in retracted]
    undone = audit.undone_batches() if retracted else set()
    for fid in sorted(retracted):
        open_: dict[str, list[list[float]]] = {}  # actor -> its contradictions not taken back
        taken: list[list[float]] = []
        for e in audit.history(fid):
            if e.undoes is not None or e.batch in undone or e.action not in ("contradict", RETRACT):
                continue
            before, now = (e.before or {}).get("contradictions"), (e.after or {}).get("contradictions")
            if not isinstance(before, int) or not isinstance(now, int):
                continue
            at = parse_time(e.at)
            stack = open_.setdefault(e.actor, [])
            if now > before:
                for _ in range(now - before):
                    stack.append([at, math.inf])
                    taken.append(stack[-1])
            for _ in range(min(before - now, len(stack))):
                stack.pop()[1] = at  # the newest first
        rows += [(index[fid], t, back) for t, back in taken if after < t <= until]
    return (
        np.array([p for p, _, _ in rows], dtype=np.int64),
        np.array([t for _, t, _ in rows], dtype=np.float64),
        np.array([b for _, _, b in rows], dtype=np.float64),
    )


def _outcomes(events, n: int, positions: np.ndarray, at: float, end: float) -> np.ndarray:
    """Index into OUTCOMES of each of `positions`: the first event in (at, end], else survived."""
    first = np.full((3, n), np.inf)
    for row, (pos, when, *back) in enumerate(events):
        inside = (when > at) & (when <= end)
        if back:  # a contradiction taken back within the window does not count
            inside &= back[0] > end
        if inside.any():
            np.minimum.at(first[row], pos[inside], when[inside])
    times = first[:, positions]
    happened = np.isfinite(times).any(axis=0)
    return np.where(happened, np.argmin(times, axis=0), 3).astype(np.int64)  # ties: listed order


def alive_as_of(past: Memory, exists: np.ndarray) -> np.ndarray:
    """Facts alive at the instant of `past`: existing, a head then, not deleted then."""
    deleted = past.arrays.deleted
    alive = exists & (past.k == 0)
    if deleted is not None:
        alive &= ~deleted
    return alive


def backtest(memory: Memory, at: float, horizon_days: float) -> Backtest:
    """Facts alive at `at` (created by then, a head then, not deleted then), scored as of
    `at`, and what happened to each within (at, at + horizon]."""
    past, exists = memory_as_of(memory, at)
    deleted = past.arrays.deleted
    alive = exists & (past.k == 0)
    if deleted is not None:
        alive &= ~deleted
    end = at + horizon_days * DAY
    n = len(memory)
    first = np.full((3, n), np.inf)  # replaced, deleted, contradicted: when it first happened
    # replaced: a fact made in the window names it (today's `supersedes`), or a person's
    # supersession in the window
    a = memory.arrays
    made = np.flatnonzero((a.created > at) & (a.created <= end) & (a.supersedes >= 0))
    _first(first[0], a.supersedes[made].tolist(), a.created[made].tolist())
    index = memory.index
    hits = [(index[f], t) for f, t in memory.store.audit.live_entries("supersede", at, end) if f in index]
    _first(first[0], [i for i, _ in hits], [t for _, t in hits])
    said, said_at, back = _contradictions(memory, at, end)
    kept = back > end
    _first(first[2], said[kept].tolist(), said_at[kept].tolist())
    # deleted: its source deleted it in the window (a sync records the instant)
    when = [(pos, t) for pos, t in memory.store.review.deleted_at() if pos < n]
    inside = [(pos, t) for pos, t in when if at < t <= end]
    _first(first[1], [p for p, _ in inside], [t for _, t in inside])
    positions = np.flatnonzero(alive)
    times = first[:, positions]
    happened = np.isfinite(times).any(axis=0)
    outcome = np.where(happened, np.argmin(times, axis=0), 3).astype(np.int64)  # ties: listed order
    span = (at - float(a.created[exists].min())) / DAY if exists.any() else 0.0
    return Backtest(at, horizon_days, outcome, past.scores.trust[positions], positions, span)


# What an AUC of a backtest needs before it judges the score (`calibrate --backtest`'s words
# only: the JSON of SPEC 11.4 and 14 is left as it is). With a few facts on either side one
# ordering decides it, and over a history of days, not weeks, freshness (SPEC 2.2: ages in
# whole days; B0 puts one event 30 days old at 0.5) tells facts apart by hours at most, so
# the AUC then says only whether the newest facts were the ones revised next.
MIN_OUTCOMES = 20  # facts that ended in the window, and facts that survived it: of each
MIN_HISTORY_DAYS = 30.0
MIN_INSTANTS = 5  # SPEC 14's blocks: one instant each


def not_a_judgement(
    ended: int,
    survived: int,
    *,
    history_days: float | None = None,
    instants: int | None = None,
    horizon_days: float | None = None,
) -> list[str]:
    """Why an AUC over these outcomes says nothing yet about the score, one reason a line;
    [] when it does. `history_days`: the store's history before T (a backtest at T);
    `instants` and `horizon_days`: the instants a history report sampled."""
    out = []
    if ended < MIN_OUTCOMES or survived < MIN_OUTCOMES:
        counts = f"{ended:,} {'fact' if ended == 1 else 'facts'} replaced, deleted or contradicted and {survived:,} survived"
        if ended == 0 or survived == 0:
            out.append(f"{counts}: an AUC needs both, about {MIN_OUTCOMES} of each")
        else:
            spread = 1.96 * math.sqrt((ended + survived + 1) / (12.0 * ended * survived))
            out.append(
                f"{counts}: with so few, chance alone moves an AUC by ±{spread:.2f} (95%);"
                f" about {MIN_OUTCOMES} of each are needed"
            )
    if history_days is not None and history_days < MIN_HISTORY_DAYS:
        out.append(
            f"the store's history before T spans {history_days:.1f} days: freshness counts age in whole"
            " days and moves over weeks, so it ranks these facts by hours at most (the newest are often"
            f" the ones still being revised); {MIN_HISTORY_DAYS:g} days of history are needed"
        )
    if instants is not None and horizon_days is not None and instants < MIN_INSTANTS:
        out.append(
            f"{instants} {'instant' if instants == 1 else 'instants'} sampled (instants are {horizon_days / 2:g} days apart):"
            f" {MIN_INSTANTS} are needed, a history of {3 * horizon_days:g} days from the first"
            f" {MIN_LIVE} live facts"
        )
    return out


def history_caveats(data: dict[str, Any]) -> list[str]:
    """`not_a_judgement` for a history report (`history_report`'s dict): the CLI's and the
    browser's History tab's words alike."""
    return not_a_judgement(
        data["samples"] - data["survived"],
        data["survived"],
        instants=data["instants"],
        horizon_days=data["horizon_days"],
    )


@dataclass(frozen=True, eq=False)
class History:
    """(fact, instant) samples through a store's history (SPEC 14): at instants every
    horizon/2 days, each fact alive then, its score inputs and trust as of then, and what
    became of it within the horizon. Samples are in time order of their instant."""

    horizon_days: float
    instants: np.ndarray  # epoch seconds
    instant: np.ndarray  # per sample: index into instants
    position: np.ndarray
    B: np.ndarray
    r: np.ndarray
    s: np.ndarray
    k: np.ndarray
    tier: np.ndarray
    trust: np.ndarray
    outcome: np.ndarray  # index into OUTCOMES

    @property
    def y(self) -> np.ndarray:
        return (self.outcome == 3).astype(np.float64)

    def __len__(self) -> int:
        return len(self.trust)


def first_instant(memory: Memory, min_live: int = MIN_LIVE) -> float | None:
    """The first instant at which `min_live` facts were alive (created, and not yet replaced
    or deleted), or None when the store never held that many."""
    a = memory.arrays
    n = len(memory)
    if n < min_live:
        return None
    ended = np.full(n, np.inf)
    for pos, when in _events(memory, -np.inf, np.inf)[:2]:
        if len(pos):
            np.minimum.at(ended, pos, when)
    created = np.sort(a.created)
    ends = np.sort(ended[np.isfinite(ended)])
    live = np.arange(1, n + 1) - np.searchsorted(ends, created, side="right")
    hit = np.flatnonzero(live >= min_live)
    return float(created[hit[0]]) if len(hit) else None


def history_instants(memory: Memory, horizon_days: float, now: float) -> np.ndarray:
    """Instants every horizon/2 days from the first with 30 live facts to now minus the
    horizon (none when the history is shorter)."""
    start = first_instant(memory)
    last = now - horizon_days * DAY
    if start is None or start > last:
        return np.zeros(0)
    step = horizon_days * DAY / 2.0
    return start + step * np.arange(int((last - start) // step) + 1)


def history(memory: Memory, horizon_days: float, now: float | None = None) -> History:
    """The samples of SPEC 14 over the store's history up to `now` (default: the store's)."""
    now = memory.scores.now if now is None else now
    instants = history_instants(memory, horizon_days, now)
    events = _events(memory, -np.inf, np.inf)
    n = len(memory)
    parts: dict[str, list[np.ndarray]] = {
        key: [] for key in ("instant", "position", "B", "r", "s", "k", "tier", "trust", "outcome")
    }
    for j, at in enumerate(instants.tolist()):
        past, exists = memory_as_of(memory, at)
        positions = np.flatnonzero(alive_as_of(past, exists))
        sc, pa = past.scores, past.arrays
        parts["instant"].append(np.full(len(positions), j, dtype=np.int64))
        parts["position"].append(positions)
        parts["B"].append(sc.B[positions])
        parts["r"].append(pa.r[positions].astype(np.float64))
        parts["s"].append(pa.s[positions].astype(np.float64))
        parts["k"].append(past.k[positions].astype(np.float64))
        parts["tier"].append(sc.tier[positions].astype(np.int64))
        parts["trust"].append(sc.trust[positions])
        parts["outcome"].append(_outcomes(events, n, positions, at, at + horizon_days * DAY))
    cols = {
        key: np.concatenate(v)
        if v
        else np.zeros(0, dtype=np.int64 if key in ("instant", "position", "tier", "outcome") else np.float64)
        for key, v in parts.items()
    }
    return History(horizon_days, instants, **cols)


def fact_kinds(memory: Memory) -> tuple[np.ndarray, tuple[str, ...]]:
    """Every fact's kind (SPEC 14, core/trust/kinds.py): as loaded when the config holds
    constants per kind, else read from the facts' provenance now."""
    from synapse_tui.core.trust.kinds import read_kinds

    a = memory.arrays
    if a.kind is not None:
        return a.kind, a.kind_names
    with memory.store.snapshot():
        return read_kinds(memory.store, len(memory))


def history_report(memory: Memory, horizon_days: float = 90.0) -> tuple[dict[str, Any], Any]:
    """`calibrate --backtest --fit`'s JSON object (SPEC 14): the samples through the store's
    history, the survival table under the current constants, and the fit."""
    from synapse_tui.core.trust.fit import Inputs
    from synapse_tui.core.trust.history_fit import fit_history

    h = history(memory, horizon_days)
    inp = Inputs(h.B, h.r, h.s, h.k, h.tier)
    codes, names = fact_kinds(memory)
    result = fit_history(
        inp, h.y, h.instant, h.instants, horizon_days, memory.config, kind=codes[h.position], kind_names=names
    )
    kind = np.array([_KIND[o] for o in range(4)], dtype=np.int8)[h.outcome] if len(h) else h.outcome
    counts = np.bincount(h.outcome, minlength=len(OUTCOMES))
    out: dict[str, Any] = {
        "horizon_days": int(horizon_days) if float(horizon_days).is_integer() else horizon_days,
        "instants": len(h.instants),
        "first_instant": format_time(float(h.instants[0])) if len(h.instants) else None,
        "last_instant": format_time(float(h.instants[-1])) if len(h.instants) else None,
        "samples": len(h),
        **{name: int(c) for name, c in zip(OUTCOMES, counts, strict=True)},
        "bins": rel.bins(h.trust, kind),
        "log_loss": rel.log_loss(h.trust, h.y),
        "baseline_log_loss": rel.baseline_log_loss(h.y),
        "auc": rel.auc(h.trust, h.y),
        "fit": result.to_json(),
    }
    if result.adopts and len(h):
        from synapse_tui.core.trust.history_fit import replay_decided

        p = replay_decided(result, inp, codes[h.position], names, memory.config)
        out["proposed_bins"] = rel.bins(p, kind)
    return out, result
