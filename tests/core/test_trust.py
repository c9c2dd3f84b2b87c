"""The arithmetic of SPEC section 2, by hand-worked examples and by properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.trust.score import (
    AUTO,
    HUMAN,
    SIG_INVALID,
    SIG_NONE,
    SIG_VALID,
    SIGNED,
    FactArrays,
    band_of,
    review_due,
    score,
    supersession_depth,
)

DAY = 86400.0
NOW = 1_800_000_000.0
CFG = Config()


def facts(
    n: int = 1,
    *,
    r=0,
    s=0,
    declared=AUTO,
    sig_state=SIG_NONE,
    trusted=False,
    ages=((1.0,),),
    o1=0,
    supersedes=None,
) -> FactArrays:
    """n facts; `ages` gives each fact's event ages in days, creation first."""
    ages = list(ages) * (n // len(ages)) if len(ages) < n else list(ages)
    counts = [len(a) for a in ages]
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    events = np.array([NOW - x * DAY for a in ages for x in a])
    full = lambda v, dt: np.broadcast_to(np.asarray(v, dtype=dt), (n,)).copy()  # noqa: E731
    return FactArrays(
        r=full(r, np.int64),
        s=full(s, np.int64),
        declared=full(declared, np.int8),
        sig_state=full(sig_state, np.int8),
        sig_trusted=full(trusted, bool),
        created=events[offsets],
        events=events,
        offsets=offsets,
        o1_count=full(o1, np.int64),
        supersedes=np.asarray(supersedes if supersedes is not None else [-1] * n, dtype=np.int64),
    )


def test_confidence_and_opinion_hand_worked():
    sc = score(facts(r=3, s=1), CFG, NOW)
    assert sc.confidence[0] == pytest.approx((3 + 0.6 * 2) / 6)
    assert (sc.b[0], sc.d[0], sc.u[0]) == pytest.approx((0.5, 1 / 6, 1 / 3))
    assert sc.guidance[0] == 2  # supported


def test_one_event_thirty_days_old_is_about_half_fresh():
    sc = score(facts(ages=[(30.0,)]), CFG, NOW)
    assert sc.B[0] == pytest.approx(-0.5 * math.log(30))
    assert sc.freshness[0] == pytest.approx(1 / (1 + math.exp(-(-0.5 * math.log(30) + 1.7))))
    assert 0.49 < sc.freshness[0] < 0.51


def test_exact_form_sums_every_event():
    sc = score(facts(ages=[(100.0, 10.0, 1.0)]), CFG, NOW)
    assert sc.B[0] == pytest.approx(math.log(100**-0.5 + 10**-0.5 + 1.0))


def test_o1_form_uses_count_and_first_seen():
    sc = score(facts(ages=[(30.0,)], o1=4), CFG, NOW)
    assert sc.B[0] == pytest.approx(math.log(4 / 0.5) - 0.5 * math.log(30))


def test_future_event_is_floored_and_flagged():
    sc = score(facts(ages=[(10.0, -1.0)]), CFG, NOW)
    assert sc.B[0] == pytest.approx(math.log(10**-0.5 + (1 / 1440) ** -0.5))
    assert sc.flag_names(0) == ["clock_skew"]


def test_guidance_thresholds_are_inclusive():
    sc = score(facts(3, r=[4, 2, 5], s=[2, 0, 1]), CFG, NOW)
    # d = 2/8 = 0.25 -> disputed; u = 2/4 = 0.5 -> uncertain; d = 1/8, u = 2/8 -> supported
    assert sc.guidance.tolist() == [0, 1, 2]


def test_supersession_depth_takes_the_smallest_supersessor():
    # 1 supersedes 0, 2 supersedes 1, 3 supersedes 0 directly
    k = supersession_depth(np.array([-1, 0, 1, 0]))
    assert k.tolist() == [1, 1, 0, 0]
    chain = supersession_depth(np.array([-1, 0, 1]))
    assert chain.tolist() == [2, 1, 0]
    sc = score(facts(3, supersedes=[-1, 0, 1]), CFG, NOW)
    assert sc.supersession.tolist() == [0.25, 0.5, 1.0]


def test_supersession_cycle_is_refused():
    with pytest.raises(InputError, match="cycle"):
        supersession_depth(np.array([-1, 2, 3, 1]))


@pytest.mark.parametrize(
    ("declared", "sig_state", "trusted", "tier", "gate", "flags"),
    [
        (SIGNED, SIG_VALID, True, SIGNED, 1.0, []),
        (AUTO, SIG_VALID, True, SIGNED, 1.0, []),
        (SIGNED, SIG_VALID, False, AUTO, 0.8, ["signature_untrusted"]),
        (SIGNED, SIG_INVALID, False, AUTO, 0.8, ["signature_invalid"]),
        (SIGNED, SIG_NONE, False, AUTO, 0.8, ["signature_invalid"]),
        (HUMAN, SIG_INVALID, False, HUMAN, 0.9, ["signature_invalid"]),
        (HUMAN, SIG_NONE, False, HUMAN, 0.9, []),
        (AUTO, SIG_NONE, False, AUTO, 0.8, []),
    ],
)
def test_provenance_gate_earns_nothing_from_a_claim(declared, sig_state, trusted, tier, gate, flags):
    sc = score(facts(declared=declared, sig_state=sig_state, trusted=trusted), CFG, NOW)
    assert (int(sc.tier[0]), float(sc.gate[0]), sc.flag_names(0)) == (tier, gate, flags)
    assert sc.base_rate[0] == (0.6, 0.85, 0.95)[tier]


def test_band_lower_bounds_are_inclusive():
    trust = np.array([0.0, 0.1999, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert band_of(trust, CFG).tolist() == [0, 0, 1, 2, 3, 4, 4]


def test_config_constants_change_the_arithmetic():
    cfg = Config().with_values("supersession", gamma=0.25).with_values("confidence", prior_weight=4.0)
    sc = score(facts(2, supersedes=[-1, 0]), cfg, NOW)
    assert sc.supersession[0] == 0.25
    assert sc.u[0] == 1.0 and sc.confidence[0] == pytest.approx(0.6)


def test_review_due_is_where_freshness_crosses_the_threshold():
    one = facts(ages=[(30.0, 2.0)])
    due = review_due(one, 0, CFG)
    assert due > NOW
    before = score(one, CFG, due - 60).freshness[0]
    after = score(one, CFG, due + 60).freshness[0]
    assert before > 0.5 > after


def test_review_due_closed_form_for_o1():
    one = facts(ages=[(10.0,)], o1=3)
    due = review_due(one, 0, CFG)
    assert score(one, CFG, due).freshness[0] == pytest.approx(0.5)


counts = st.integers(min_value=0, max_value=10_000)
ages_st = st.lists(st.floats(min_value=-5, max_value=5000, allow_nan=False), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(
    r=counts,
    s=counts,
    ages=ages_st,
    declared=st.sampled_from([AUTO, HUMAN, SIGNED]),
    sig=st.sampled_from([SIG_NONE, SIG_VALID, SIG_INVALID]),
    trusted=st.booleans(),
    o1=st.integers(0, 50),
    depth=st.integers(0, 6),
)
def test_every_factor_in_unit_interval_and_opinion_sums_to_one(r, s, ages, declared, sig, trusted, o1, depth):
    n = depth + 1
    sup = [-1] + list(range(depth))  # fact j supersedes fact j - 1: fact 0 has depth `depth`
    a = facts(
        n,
        r=r,
        s=s,
        declared=declared,
        sig_state=sig,
        trusted=trusted,
        ages=[tuple(ages)],
        o1=o1,
        supersedes=sup,
    )
    sc = score(a, CFG, NOW)
    for factor in (sc.confidence, sc.freshness, sc.supersession, sc.gate):
        assert np.all((factor > 0) & (factor <= 1))
    assert np.all((sc.trust >= 0) & (sc.trust <= 1))
    assert np.allclose(sc.b + sc.d + sc.u, 1.0)
    assert np.allclose(sc.b + sc.base_rate * sc.u, sc.confidence)
    assert sc.k[0] == depth


@settings(max_examples=100, deadline=None)
@given(r=counts, s=counts, ages=ages_st)
def test_monotone_in_the_right_direction(r, s, ages):
    base = score(facts(r=r, s=s, ages=[tuple(ages)]), CFG, NOW)
    more_r = score(facts(r=r + 1, s=s, ages=[tuple(ages)]), CFG, NOW)
    more_s = score(facts(r=r, s=s + 1, ages=[tuple(ages)]), CFG, NOW)
    later = score(facts(r=r, s=s, ages=[tuple(ages)]), CFG, NOW + 30 * DAY)
    reinforced = score(facts(r=r, s=s, ages=[tuple(ages) + (0.0,)]), CFG, NOW)
    assert more_r.confidence[0] >= base.confidence[0]
    assert more_s.confidence[0] <= base.confidence[0]
    assert later.freshness[0] <= base.freshness[0]
    assert reinforced.freshness[0] > base.freshness[0]


def test_compacted_and_span_keep_every_facts_events():
    """Moved event lists fold back in place of the stale ones; a span is its facts alone."""
    rng = np.random.default_rng(3)
    lists = [np.sort(rng.uniform(0, 100, rng.integers(1, 6))) for _ in range(40)]
    counts = np.array([len(x) for x in lists])
    offsets = np.concatenate([[0], np.cumsum(counts[:-1])])
    n = len(lists)
    arrays = FactArrays(
        r=np.zeros(n, np.int64),
        s=np.zeros(n, np.int64),
        declared=np.zeros(n, np.int8),
        sig_state=np.zeros(n, np.int8),
        sig_trusted=np.zeros(n, bool),
        created=np.array([x[0] for x in lists]),
        events=np.concatenate(lists),
        offsets=offsets,
        o1_count=np.zeros(n, np.int64),
        supersedes=np.full(n, -1, np.int64),
    )
    for i in (0, 7, 8, 39):  # first, neighbours, last; longer and shorter
        lists[i] = np.sort(rng.uniform(0, 100, rng.integers(1, 9)))
        arrays.moved[i] = lists[i]
    folded = arrays.compacted()
    assert not folded.moved and np.array_equal(folded.events, np.concatenate(lists))
    assert all(np.array_equal(folded.events_of(i), lists[i]) for i in range(n))
    assert np.array_equal(folded.created, [x[0] for x in lists])
    part = arrays.span(5, 12)
    assert len(part) == 7 and all(np.array_equal(part.events_of(j), lists[5 + j]) for j in range(7))
    assert len(arrays.span(38, 99)) == 2 and len(arrays.span(40, 45)) == 0
