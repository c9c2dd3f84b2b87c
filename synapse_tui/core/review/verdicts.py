"""What people decided about facts, read from the audit log (SPEC 11.1), and the report that
measures the trust score against it: the reliability table and the fit (SPEC 11.2, 11.3).

Each triage entry logged the fact's score and inputs just before the action
(`score_before`), so a verdict is a prediction (that trust) and an outcome (the action)
without re-reading the fact: corroborate / verify / accept say it holds, contradict that it
was wrong, a supersession that it was replaced. Read in one query (`Audit.verdict_rows`), so
100,000 verdicts take a fraction of a second.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.config import Config, non_defaults
from synapse_tui.core.base.errors import InputError
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust import reliability as rel
from synapse_tui.core.trust.fit import FitResult, Inputs, fit
from synapse_tui.core.trust.score import TIERS

ACTORS = {"people": ("user:",), "agents": ("agent:",), "all": ("user:", "agent:")}
HOLDS_ACTIONS = ("corroborate", "verify", "accept")


@dataclass(frozen=True, eq=False)
class Verdicts:
    """Every verdict, in time order (ties by audit seq), one array per field."""

    seq: np.ndarray
    at: np.ndarray  # epoch seconds
    kind: np.ndarray  # reliability.HOLDS / WRONG / REPLACED
    p: np.ndarray  # score_before.trust
    inputs: Inputs  # score_before's B, r, s, k, tier (NaN / -1 where an older entry lacks one)
    age_days: np.ndarray  # verdict time minus score_before.last_reinforced_at (NaN: unknown)
    reinforcements: np.ndarray  # score_before.reinforcement_count (0: unknown)
    source: list[str]  # the fact's x-source, else "native"
    fact_ids: list[str]
    actors: list[str]
    skipped: int  # verdicts with no score_before
    # per verdict: its fact's kind has its own freshness constants in the config (SPEC 14), so
    # the global B0 and s do not score it and the fit leaves it out; None: no kind configured
    own_kind: np.ndarray | None = None

    @property
    def y(self) -> np.ndarray:
        return (self.kind == rel.HOLDS).astype(np.float64)

    def __len__(self) -> int:
        return len(self.p)

    @property
    def replayable(self) -> np.ndarray:
        i = self.inputs
        return np.isfinite(i.B) & (i.r >= 0) & (i.s >= 0) & (i.k >= 0) & (i.tier >= 0)


def read_verdicts(
    store: Store, actors: str = "people", since: float | None = None, no_accept: bool = False
) -> Verdicts:
    """The live verdicts of `actors` (people | agents | all) at or after `since`."""
    if actors not in ACTORS:
        raise InputError(f"--actors must be one of {', '.join(ACTORS)}, got {actors!r}", field="actors")
    holds = HOLDS_ACTIONS[:2] if no_accept else HOLDS_ACTIONS
    rows = store.audit.verdict_rows(holds, ACTORS[actors], since)
    with_score = [r for r in rows if r[3] and r[4] is not None]
    skipped = len(rows) - len(with_score)
    cols = list(zip(*with_score, strict=True)) if with_score else [()] * 15
    seq = np.array(cols[0], dtype=np.int64)
    at = np.array(cols[1], dtype=np.float64)
    action = cols[2]
    kind = np.array(
        [
            rel.HOLDS if a in HOLDS_ACTIONS else rel.WRONG if a == "contradict" else rel.REPLACED
            for a in action
        ],
        dtype=np.int8,
    )
    tier_code = {name: i for i, name in enumerate(TIERS)}

    def numbers(col: tuple, missing: float, dtype: Any) -> np.ndarray:
        return np.array([missing if v is None else v for v in col], dtype=dtype)

    inputs = Inputs(
        B=numbers(cols[5], np.nan, np.float64),
        r=numbers(cols[6], -1, np.float64),
        s=numbers(cols[7], -1, np.float64),
        k=numbers(cols[8], -1, np.float64),
        tier=np.array([tier_code.get(t, -1) for t in cols[9]], dtype=np.int64),
    )
    order = np.lexsort((seq, at))  # time order, ties by seq
    v = Verdicts(
        seq=seq[order],
        at=at[order],
        kind=kind[order],
        p=numbers(cols[4], np.nan, np.float64)[order],
        inputs=inputs.take(order),
        age_days=numbers(cols[11], np.nan, np.float64)[order],
        reinforcements=numbers(cols[10], 0, np.int64)[order],
        source=[cols[12][i] or "native" for i in order.tolist()],
        fact_ids=[cols[13][i] for i in order.tolist()],
        actors=[cols[14][i] for i in order.tolist()],
        skipped=skipped,
    )
    return v


@dataclass(frozen=True)
class VerdictReport:
    """`calibrate --verdicts --json` (SPEC 11): the table, the features and the fit."""

    verdicts: int
    holds: int
    wrong: int
    replaced: int
    skipped: int
    actors: str
    table: dict[str, Any]  # bins, log_loss, brier, baseline_log_loss, auc
    by_feature: dict[str, list[dict[str, Any]]]
    fit: FitResult | None  # None until `with_fit` (the browser paints the table first)
    source: Verdicts = field(repr=False, compare=False)  # the verdicts the fit replays

    def with_fit(self, config: Config) -> VerdictReport:
        """The report with the fit of SPEC 11.3 over its verdicts (those whose logged inputs
        can be replayed)."""
        v = self.source
        assert v is not None  # a report is made with its verdicts (verdict_report)
        ok = v.replayable
        own = v.own_kind if v.own_kind is not None else np.zeros(len(v), dtype=np.bool_)
        use = ok & np.logical_not(own)
        result = fit(v.inputs.take(np.flatnonzero(use)), v.y[use], config)
        if (ok & own).any():
            result = replace(
                result,
                reason=f"{result.reason}; {int((ok & own).sum())} verdicts on facts of kinds with their own"
                " freshness constants are left out (the global constants do not score them)",
            )
        return replace(self, fit=result)

    def to_json(self) -> dict[str, Any]:
        return {
            "verdicts": self.verdicts,
            "holds": self.holds,
            "wrong": self.wrong,
            "replaced": self.replaced,
            "skipped": self.skipped,
            "actors": self.actors,
            **self.table,
            "by_feature": self.by_feature,
            "fit": None if self.fit is None else self.fit.to_json(),
        }


def by_feature(v: Verdicts) -> dict[str, list[dict[str, Any]]]:
    """The verdicts grouped by each factor's input: which factor is off shows as a group
    whose rate and mean trust part, and a score cannot pass it by predicting the average."""
    p, y = v.p, v.y
    known_age = np.isfinite(v.age_days)
    known_n = v.reinforcements > 0
    tiers = [t for t in TIERS]
    tier_idx = v.inputs.tier
    known_tier = tier_idx >= 0
    sources = sorted(set(v.source))
    src_idx = (
        np.array([sources.index(s) for s in v.source], dtype=np.int64) if sources else np.empty(0, np.int64)
    )
    return {
        "age_days": rel.grouped(
            list(rel.AGE_KEYS), rel.age_keys(v.age_days[known_age]), p[known_age], y[known_age]
        ),
        "reinforcements": rel.grouped(
            list(rel.REINFORCEMENT_KEYS),
            rel.reinforcement_keys(v.reinforcements[known_n]),
            p[known_n],
            y[known_n],
        ),
        "tier": rel.grouped(tiers, tier_idx[known_tier], p[known_tier], y[known_tier]),
        "source": rel.grouped(sources, src_idx, p, y),
    }


def _own_kind(store: Store, fact_ids: list[str], config: Config) -> np.ndarray:
    """Per verdict: its fact is of a kind the config holds its own constants for."""
    from synapse_tui.core.trust.kinds import kind_of

    own: dict[str, bool] = {}
    for fid in dict.fromkeys(fact_ids):
        rec = store.record(fid)
        own[fid] = config.freshness.constants_for(kind_of(rec.provenance if rec else None))[2]
    return np.array([own[f] for f in fact_ids], dtype=bool)


def verdict_report(
    store: Store,
    config: Config,
    actors: str = "people",
    since: float | None = None,
    no_accept: bool = False,
    fitted: bool = True,
) -> VerdictReport:
    """The report of SPEC 11; `fitted=False` leaves the fit for `with_fit` (it costs more
    than the rest together, and the table need not wait for it)."""
    v = read_verdicts(store, actors, since, no_accept)
    if config.freshness.kind:
        v = replace(v, own_kind=_own_kind(store, v.fact_ids, config))
    y = v.y
    report = VerdictReport(
        verdicts=len(v),
        holds=int(np.sum(v.kind == rel.HOLDS)),
        wrong=int(np.sum(v.kind == rel.WRONG)),
        replaced=int(np.sum(v.kind == rel.REPLACED)),
        skipped=v.skipped,
        actors=actors,
        table=rel.table(v.p, y, v.kind),
        by_feature=by_feature(v),
        fit=None,
        source=v,
    )
    return report.with_fit(config) if fitted else report


# what `calibrate --verdicts --write` (and the browser's adopt) record beside the facts: the
# constants written and how many verdicts they were fitted on, so a reader of the score
# (an agent over MCP) can tell fitted constants from defaults or a person's choice
FIT_META = "calibration.fit"


def record_fit(store: Store, fit: FitResult, verdicts: int, at: float) -> None:
    """Keep in the store which constants were fitted, on how many verdicts, and when."""
    store.set_meta(
        FIT_META,
        {"constants": {n: fit.proposed[n] for n in fit.fitted}, "verdicts": verdicts, "at": format_time(at)},
    )


def record_history_fit(store: Store, constants: dict[str, float], samples: int, at: float) -> None:
    """`record_fit` for a fit to the store's history (SPEC 14, `calibrate --backtest --fit
    --write`): the constants written (a kind's as `freshness.kind.NAME.b0|scale`), on how
    many (fact, instant) samples, and how many facts the store held (what a reader checks
    the record against, as a verdict record is checked against the audit)."""
    store.set_meta(
        FIT_META,
        {
            "constants": constants,
            "source": "history",
            "samples": samples,
            "facts": store.count(),
            "at": format_time(at),
        },
    )


def constants_in_use(store: Store, config: Config) -> dict[str, Any]:
    """The constants the score uses now, and whether they are the ones last fitted to
    verdicts here (every fitted value still what the config holds) and on how many."""
    record = store.meta(FIT_META)
    return constants_given(record, config, held_for(store, record))


def held_for(store: Store, record: Any) -> int | None:
    """`verdicts_held` when `record` is a fit record worth checking (for a fit to the
    history: the facts the store holds), else None, not read."""
    if not _well_formed(record):
        return None
    return store.count() if record.get("source") == "history" else verdicts_held(store)


def _claimed(record: Any) -> str:
    """The count a fit record claims and a reader checks: facts (history) or verdicts."""
    return "facts" if record.get("source") == "history" else "verdicts"


def _well_formed(record: Any) -> bool:
    """A fit record of the shape `record_fit` writes: constants by name, a verdict count."""
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("constants"), dict)
        or not record["constants"]
    ):
        return False
    verdicts = record.get(_claimed(record))
    return (
        isinstance(verdicts, int)
        and not isinstance(verdicts, bool)
        and verdicts > 0
        and all(
            isinstance(n, str)
            and isinstance(v, (int, float))
            and not isinstance(v, bool)
            and math.isfinite(v)
            for n, v in record["constants"].items()
        )
    )


def verdicts_held(store: Store) -> int:
    """How many verdicts (by anyone, with the score they were made on) the audit holds:
    what a fit record may claim at most."""
    rows = store.audit.verdict_rows(HOLDS_ACTIONS, ACTORS["all"], None)
    return sum(1 for r in rows if r[3] and r[4] is not None)


def constants_given(record: Any, config: Config, held: int | None = None) -> dict[str, Any]:
    """`constants_in_use` from the store's meta `FIT_META` (`record`), read by the caller;
    `held`: `held_for` (fitted only when the audit holds what the record claims; None:
    not read, so not fitted)."""
    from synapse_tui.core.trust.fit import current_constants

    values = current_constants(config)
    for kind, b0, scale in config.freshness.kind:  # a kind's own (SPEC 14)
        values[f"freshness.kind.{kind}.b0"], values[f"freshness.kind.{kind}.scale"] = b0, scale
    fitted = (
        _well_formed(record)
        and all(
            name in values and abs(values[name] - float(v)) <= 1e-12 * max(1.0, abs(values[name]))
            for name, v in record["constants"].items()
        )
        # the audit holds the verdicts the record claims (a record written by hand or by a
        # role that may write meta claims what it likes): `held` counts them, None unread
        and held is not None
        and record[_claimed(record)] <= held
    )
    changed = non_defaults(config)
    out: dict[str, Any] = {
        "values": values,
        "fitted": fitted,
        "defaults": not changed,
        "not_defaults": {name: {"value": v, "default": d} for name, (v, d) in changed.items()},
    }
    if fitted and record.get("source") == "history":  # fitted to what happened next (SPEC 14)
        out.update(
            fitted_names=sorted(record["constants"]),
            fitted_to="history",
            samples=record.get("samples"),
            fitted_at=record.get("at"),
        )
    elif fitted:
        out.update(
            fitted_names=sorted(record["constants"]),
            fitted_to="verdicts",
            verdicts=record.get("verdicts"),
            fitted_at=record.get("at"),
        )
    return out
