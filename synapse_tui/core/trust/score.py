"""ADR-029 trust arithmetic over every fact at once.

TRUST = Confidence x Freshness x SupersessionPenalty x ProvenanceGate. Each factor is
kept as its own named array because the breakdown is the explanation. Nothing here
loops over facts in Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.store.arrays import SIG_INVALID, SIG_NONE, SIG_VALID, FactArrays  # noqa: F401 (their home before)

DAY = 86400.0

TIERS = ("auto", "human", "signed")
AUTO, HUMAN, SIGNED = range(3)
GUIDANCE = ("disputed", "uncertain", "supported")
GUIDANCE_ADVICE = {
    "disputed": "disputed: go resolve",
    "uncertain": "uncertain: go corroborate",
    "supported": "supported",
}
# what an agent reads before the guidance, for a fact its source no longer holds: the
# guidance stays the opinion's (SPEC 2.1), which knows nothing of the source (SPEC 10)
CAUTION_DELETED = "deleted at its source: do not rely on it"
BANDS = ("very low", "low", "moderate", "high", "very high")
FLAG_CLOCK_SKEW, FLAG_SIG_INVALID, FLAG_SIG_UNTRUSTED, FLAG_DELETED = 1, 2, 4, 8
FLAG_INVALIDATED = 16  # invalid at its source, no successor named (SPEC 9)
FLAG_EXPIRED = 32  # gone from its source by the source's TTL, not deleted by its agent (SPEC 9)
FLAG_NAMES = (
    (FLAG_CLOCK_SKEW, "clock_skew"),
    (FLAG_SIG_INVALID, "signature_invalid"),
    (FLAG_SIG_UNTRUSTED, "signature_untrusted"),
    (FLAG_DELETED, "deleted"),
    (FLAG_INVALIDATED, "invalidated"),
    (FLAG_EXPIRED, "expired"),
)


@dataclass(frozen=True, eq=False)
class Scores:
    """Every factor, its inputs' derived values, and the verdicts, per position."""

    now: float
    confidence: np.ndarray
    freshness: np.ndarray
    supersession: np.ndarray
    gate: np.ndarray
    trust: np.ndarray
    b: np.ndarray
    d: np.ndarray
    u: np.ndarray
    base_rate: np.ndarray
    B: np.ndarray
    k: np.ndarray  # int64 supersession depth
    tier: np.ndarray  # int8 effective tier
    guidance: np.ndarray  # int8 index into GUIDANCE
    band: np.ndarray  # int8 index into BANDS
    flags: np.ndarray  # int8 bit set of FLAG_*
    age_days: np.ndarray  # floored age of creation

    def __len__(self) -> int:
        return len(self.trust)

    def flag_names(self, i: int) -> list[str]:
        return [name for bit, name in FLAG_NAMES if self.flags[i] & bit]


def ages_days(times: np.ndarray, now: float, config: Config) -> np.ndarray:
    # in place: one new array, not three (an events-sized one is 40 MB at a million facts,
    # and every fresh one costs its page faults); the same operations, so the same bits
    ages = np.subtract(now, times, dtype=np.float64)
    ages /= DAY
    return np.maximum(ages, config.freshness.min_age_days, out=ages)


def supersession_depth(supersedes: np.ndarray) -> np.ndarray:
    """Depth k per fact: 0 for heads, else 1 + the smallest k among its supersessors.

    Each fact names at most one fact, so the chains form a functional graph and a
    breadth-first sweep from the heads assigns every depth at its smallest value.
    Raises InputError naming the facts of a cycle.
    """
    n = len(supersedes)
    cyclic = in_cycle(supersedes)
    if cyclic.any():
        raise InputError(f"supersession cycle through {int(cyclic.sum())} facts", field="supersedes")
    k = np.full(n, -1, dtype=np.int64)
    named = supersedes[supersedes >= 0]
    heads = np.flatnonzero(np.bincount(named, minlength=n) == 0)
    k[heads] = 0
    frontier, level = heads, 0
    while frontier.size:
        level += 1
        nxt = supersedes[frontier]
        nxt = np.unique(nxt[nxt >= 0])
        nxt = nxt[k[nxt] < 0]
        k[nxt] = level
        frontier = nxt
    return k


def in_cycle(supersedes: np.ndarray) -> np.ndarray:
    """True for facts whose supersedes-chain never ends.

    Pointer doubling over just the facts that name another (usually a few percent): each
    round halves the remaining chain length, so real stores finish in a few rounds and
    anything still pointing somewhere after log2(N) + 1 rounds is on or into a cycle.
    """
    p = supersedes.copy()
    active = np.flatnonzero(p >= 0)
    for _ in range(max(1, math.ceil(math.log2(len(p) + 1))) + 1):
        if active.size == 0:
            break
        p[active] = p[p[active]]
        active = active[p[active] >= 0]
    return p >= 0


def activation(arrays: FactArrays, now: float, config: Config) -> np.ndarray:
    """ACT-R base-level activation B: exact over events, or the O(1) form."""
    d = config.freshness.decay
    terms = ages_days(arrays.events, now, config)
    terms **= -d  # what `terms ** -d` computes (numpy's scalar-power shortcuts included), in place
    exact = np.log(np.add.reduceat(terms, arrays.offsets))
    n = np.maximum(arrays.o1_count, 1)
    first_seen = ages_days(arrays.created, now, config)
    o1 = np.log(n / (1.0 - d)) - d * np.log(first_seen)
    return np.where(arrays.o1_count > 0, o1, exact)


def effective_tier(arrays: FactArrays) -> tuple[np.ndarray, np.ndarray]:
    """Effective tier and signature flags: only a verified, trusted signature counts."""
    signed = arrays.sig_trusted & (arrays.sig_state == SIG_VALID)
    tier = np.where(signed, SIGNED, np.where(arrays.declared == HUMAN, HUMAN, AUTO)).astype(np.int8)
    claims = (arrays.declared == SIGNED) | (arrays.sig_state != SIG_NONE)
    untrusted = claims & ~signed & (arrays.sig_state == SIG_VALID)
    invalid = claims & ~signed & ~untrusted
    flags = np.where(invalid, FLAG_SIG_INVALID, 0) | np.where(untrusted, FLAG_SIG_UNTRUSTED, 0)
    return tier, flags.astype(np.int8)


def score(arrays: FactArrays, config: Config, now: float, k: np.ndarray | None = None) -> Scores:
    """Score every fact at `now`. `k` may be passed when the depths are already known."""
    c = config.confidence
    arrays = arrays.compacted()
    tier, flags = effective_tier(arrays)

    r = arrays.r.astype(np.float64)
    s = arrays.s.astype(np.float64)
    total = r + s + c.prior_weight
    base_rate = np.array([c.base_rate_auto, c.base_rate_human, c.base_rate_signed])[tier]
    confidence = (r + base_rate * c.prior_weight) / total
    b, d, u = r / total, s / total, c.prior_weight / total

    B = activation(arrays, now, config)
    b0, scale = freshness_constants(arrays, config)
    freshness = 1.0 / (1.0 + np.exp(-(B - b0) / scale))

    if k is None:
        k = supersession_depth(arrays.supersedes)
    supersession = config.supersession.gamma ** k.astype(np.float64)

    p = config.provenance
    gate = np.array([p.gate_auto, p.gate_human, p.gate_signed])[tier]

    trust = confidence * freshness * supersession * gate
    g = config.guidance
    guidance = np.where(d >= g.disputed_d, 0, np.where(u >= g.uncertain_u, 1, 2)).astype(np.int8)
    band = band_of(trust, config)

    if len(arrays.events) and arrays.events.max() > now:  # rare: skip the reduce when none is
        skew = np.maximum.reduceat(arrays.events, arrays.offsets) > now  # creation included
    else:
        skew = np.zeros(len(arrays.r), dtype=bool)
    flags = flags | np.where(skew, FLAG_CLOCK_SKEW, 0).astype(np.int8)
    if arrays.deleted is not None:
        gone = arrays.deleted if arrays.expired is None else arrays.deleted & ~arrays.expired
        flags = flags | np.where(gone, FLAG_DELETED, 0).astype(np.int8)
    if arrays.expired is not None:  # expired, not deleted: its flag says so instead
        flags = flags | np.where(arrays.expired, FLAG_EXPIRED, 0).astype(np.int8)
    if arrays.invalidated is not None:
        flags = flags | np.where(arrays.invalidated, FLAG_INVALIDATED, 0).astype(np.int8)

    return Scores(
        now=now,
        confidence=confidence,
        freshness=freshness,
        supersession=supersession,
        gate=gate,
        trust=trust,
        b=b,
        d=d,
        u=u,
        base_rate=base_rate,
        B=B,
        k=k,
        tier=tier,
        guidance=guidance,
        band=band,
        flags=flags,
        age_days=ages_days(arrays.created, now, config),
    )


def freshness_constants(arrays: FactArrays, config: Config) -> tuple[np.ndarray | float, np.ndarray | float]:
    """B0 and s per fact: a kind's own (`[freshness.kind.NAME]`, SPEC 14) where the config
    holds them and the arrays carry the facts' kinds, else the global ones, as scalars when
    no fact has a kind's own (then the arithmetic is SPEC 2.2's, bit for bit)."""
    f = config.freshness
    if not f.kind or arrays.kind is None or not len(arrays.kind_names):
        return f.b0, f.scale
    # one entry per kind named in the arrays, then the global constants (code -1)
    table = [f.constants_for(name) for name in arrays.kind_names] + [(f.b0, f.scale, False)]
    if not any(own for _, _, own in table):
        return f.b0, f.scale
    b0 = np.array([t[0] for t in table])
    scale = np.array([t[1] for t in table])
    return b0[arrays.kind], scale[arrays.kind]


def kind_constants(arrays: FactArrays, i: int, config: Config) -> dict[str, object]:
    """Which freshness constants scored fact i, and where they came from: its kind (None:
    none), b0, scale, and `from` ("kind": `[freshness.kind.NAME]`; else "global")."""
    kind = None
    if arrays.kind is not None and arrays.kind[i] >= 0:
        kind = arrays.kind_names[int(arrays.kind[i])]
    b0, scale, own = config.freshness.constants_for(kind)
    return {"kind": kind, "b0": b0, "scale": scale, "from": "kind" if own else "global"}


def band_of(trust: np.ndarray, config: Config) -> np.ndarray:
    """Band index per trust value; each band's lower bound is inclusive."""
    return np.searchsorted(np.asarray(config.bands.edges), trust, side="right").astype(np.int8)


def review_due(arrays: FactArrays, i: int, config: Config) -> float:
    """The instant fact i's freshness falls to review.threshold if nothing reinforces it."""
    return float(review_dues(arrays, np.array([i]), config)[0])


def review_dues(arrays: FactArrays, positions: np.ndarray, config: Config) -> np.ndarray:
    """`review_due` of several facts at once (a page of search results), in epoch seconds.

    Freshness only falls as time passes, so the crossing is unique. The O(1) form has a
    closed form. For the exact form, before the latest event the age floor makes B very
    large, so the search starts there (a fact already below threshold at its latest event
    is due at that event): the step doubles until B falls below the target, then a
    bisection to 1 ms, every fact in lockstep (each stops on its own).
    """
    f = config.freshness
    q = config.review.threshold
    positions = np.asarray(positions, dtype=np.int64)
    b0, scale = freshness_constants(arrays, config)
    if isinstance(b0, np.ndarray):  # a kind's own constants: each fact's crossing its own
        b0, scale = b0[positions], np.asarray(scale)[positions]
    # B at which freshness == q, per fact
    target = np.broadcast_to(
        np.asarray(b0 + scale * math.log(q / (1.0 - q)), dtype=np.float64), len(positions)
    )
    d = f.decay
    out = np.empty(len(positions))
    n = arrays.o1_count[positions]
    o1 = n > 0
    if o1.any():
        age = np.exp((np.log(n[o1] / (1.0 - d)) - target[o1]) / d)
        out[o1] = arrays.created[positions[o1]] + np.maximum(age, f.min_age_days) * DAY
    exact = positions[~o1]
    if not len(exact):
        return out
    target = target[~o1]
    if arrays.moved:  # a triage action's new events live beside the flat array: read those
        arrays, exact = arrays.rows(exact), np.arange(len(exact))
    # the events of each fact as one row, padded (padding contributes nothing)
    starts = arrays.offsets[exact]
    ends = np.append(arrays.offsets, len(arrays.events))[exact + 1]
    width = int((ends - starts).max())
    cols = np.arange(width)
    valid = cols[None, :] < (ends - starts)[:, None]
    events = arrays.events[np.minimum(starts[:, None] + cols[None, :], len(arrays.events) - 1)]

    def b_at(t: np.ndarray, rows: np.ndarray) -> np.ndarray:
        ages = np.maximum((t[:, None] - events[rows]) / DAY, f.min_age_days)
        # a running sum: adds each fact's terms in order whatever the padding, so one fact
        # gets the same date alone or in a batch
        return np.log(np.cumsum(np.where(valid[rows], ages**-d, 0.0), axis=1)[:, -1])

    lo = np.where(valid, events, -np.inf).max(axis=1)
    hi = lo + DAY
    every = np.arange(len(exact))
    done = b_at(lo, every) <= target
    hi[done] = lo[done]
    grow = every[~done]
    while grow.size:
        grow = grow[b_at(hi[grow], grow) > target[grow]]
        hi[grow] = lo[grow] + (hi[grow] - lo[grow]) * 2
    active = every[~done]
    for _ in range(100):
        if not active.size:
            break
        mid = (lo[active] + hi[active]) / 2
        above = b_at(mid, active) > target[active]
        lo[active[above]] = mid[above]
        hi[active[~above]] = mid[~above]
        active = active[hi[active] - lo[active] >= 1e-3]
    out[~o1] = hi
    return out
