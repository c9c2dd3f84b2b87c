"""Constants fitted to what happened next in the store's own history (SPEC 14).

Most stores hold no verdicts, but every store's history says which facts were replaced,
deleted or contradicted within a horizon after each instant. The samples are (fact, instant)
pairs; the fit is the one of SPEC 11.3 (its ladder, penalty and optimiser, `fit.py`), over
the inputs each fact had as of the instant. The held-out check differs where the data do:

- blocks are of instants, in time order, and a fold trains only on instants whose horizon
  ended before the first test instant (an embargo: windows H long at instants H/2 apart
  overlap, and an overlapping window would leak the answer);
- the fit must win in most held-out blocks as well as on their mean (a 0.001 margin over a
  few hundred samples is won by chance);
- when a constant rate predicts better than any freshness fitted, the report says so, with
  the ceiling the gate and the base rate put on trust, and offers to flatten freshness;
- when facts differ only by age, a refit of B0 and s cannot change the ranking (AUC): said.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.trust import fit as vfit
from synapse_tui.core.trust.reliability import auc, log_loss

DAY = 86400.0
MIN_LIVE = 30  # the first instant is the first with this many live facts
FLAT = {"freshness.b0": -6.0, "freshness.scale": 0.5}  # freshness >= 0.99 for any fact under 30 years
NO_AGE = "on this memory, age does not predict revision"
CONSTANT_WINS = "a constant rate predicts better: age tells little here"


@dataclass(frozen=True)
class HistoryFit:
    decision: str  # adopt | keep-current | too-few
    reason: str
    fitted: list[str]
    current: dict[str, float]
    proposed: dict[str, float]
    heldout_log_loss_current: float | None = None
    heldout_log_loss_fitted: float | None = None
    heldout_log_loss_baseline: float | None = None
    blocks: list[dict[str, Any]] = field(default_factory=list)
    blocks_won: int = 0
    auc_current: float | None = None
    auc_proposed: float | None = None
    survival_rate: float | None = None
    ceiling: float | None = None
    age_predicts: bool = True
    ranking_fixed: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def constants(self) -> dict[str, float]:
        """The constants that score facts after this decision."""
        return self.proposed if self.decision == "adopt" else self.current

    def to_json(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "reason": self.reason,
            "fitted": self.fitted,
            "current": self.current,
            "proposed": self.proposed,
            "constants": self.constants,
            "heldout_log_loss_current": self.heldout_log_loss_current,
            "heldout_log_loss_fitted": self.heldout_log_loss_fitted,
            "heldout_log_loss_baseline": self.heldout_log_loss_baseline,
            "heldout_blocks": len(self.blocks),
            "heldout_blocks_won": self.blocks_won,
            "blocks": self.blocks,
            "auc_current": self.auc_current,
            "auc_proposed": self.auc_proposed,
            "survival_rate": self.survival_rate,
            "ceiling": self.ceiling,
            "age_predicts": self.age_predicts,
            "ranking_fixed": self.ranking_fixed,
            "flatten": dict(FLAT) if not self.age_predicts else None,
            "notes": self.notes,
        }


def _samples(text: str) -> str:
    return text.replace("verdicts", "samples").replace("holds", "survived")


def _non_freshness(values: dict[str, float], inp: vfit.Inputs, config: Config) -> np.ndarray:
    """Each sample's trust with freshness 1: confidence x supersession x gate."""
    flat = dict(values) | {"freshness.b0": -1e6, "freshness.scale": 1.0}
    return vfit.replay(flat, inp, config)


def fit_history(
    inp: vfit.Inputs,
    y: np.ndarray,
    instant: np.ndarray,
    instants: np.ndarray,
    horizon_days: float,
    config: Config,
    blocks: int = vfit.FOLDS,
) -> HistoryFit:
    """The decision of SPEC 14 over samples in time order of their instant (`instant`
    indexes `instants`, epoch seconds)."""
    y = np.asarray(y, dtype=np.float64)
    current = vfit.current_constants(config)
    names, why = vfit.ladder(inp, y)
    why = _samples(why)
    n = len(y)
    rate = float(np.mean(y)) if n else None
    ceiling = float(np.max(_non_freshness(current, inp, config))) if n else None
    if not len(instants):
        why = (
            f"no instant to sample: the store never held {MIN_LIVE} live facts {horizon_days:g} days"
            " (the horizon) or more before now"
        )
    if not names:
        return HistoryFit("too-few", why, [], current, dict(current), survival_rate=rate, ceiling=ceiling)
    parts = np.array_split(np.arange(len(instants)), min(blocks, len(instants)))
    folds = []
    for j in range(1, len(parts)):
        test_at = instants[parts[j][0]]
        train_inst = np.flatnonzero(instants + horizon_days * DAY <= test_at)  # the embargo
        train = np.flatnonzero(np.isin(instant, train_inst))
        test = np.flatnonzero(np.isin(instant, parts[j]))
        if len(test) and vfit.ladder(inp.take(train), y[train])[0]:
            folds.append((train, test))
    if not folds:
        return HistoryFit(
            "too-few",
            f"{why}, but the history is too short to hold any out: {len(instants)} instants, and a"
            f" fold trains only on instants whose {horizon_days:g}-day horizon ended before it",
            [],
            current,
            dict(current),
            survival_rate=rate,
            ceiling=ceiling,
        )
    try:
        import scipy.optimize  # noqa: F401
    except ImportError:
        return HistoryFit(
            "keep-current",
            f"not fitted: the fit needs scipy ({vfit.INSTALL_HINT})",
            [],
            current,
            dict(current),
        )
    with vfit._one_blas_thread():
        return _checked(inp, y, config, current, names, why, folds, rate, ceiling)


def _checked(inp, y, config, current, names, why, folds, rate, ceiling) -> HistoryFit:
    rows: list[dict[str, Any]] = []
    start = current
    for train, test in folds:
        tout = inp.take(test)
        start = vfit.fit_constants(inp.take(train), y[train], current, names, config, start)
        train_rate = float(np.mean(y[train]))
        rows.append(
            {
                "train": len(train),
                "test": len(test),
                "current": log_loss(vfit.replay(current, tout, config), y[test]),
                "fitted": log_loss(vfit.replay(start, tout, config), y[test]),
                "baseline": log_loss(np.full(len(test), train_rate), y[test]),
            }
        )
    proposed = vfit.fit_constants(inp, y, current, names, config, start)
    h_cur, h_fit, h_base = (
        float(np.mean([r[key] for r in rows])) for key in ("current", "fitted", "baseline")
    )
    won = sum(r["fitted"] < r["current"] for r in rows)
    majority = won * 2 > len(rows)
    p_cur = vfit.replay(current, inp, config)
    p_new = vfit.replay(proposed, inp, config)
    auc_cur, auc_new = auc(p_cur, y), auc(p_new, y)
    rest = _non_freshness(current, inp, config)
    ranking_fixed = float(np.ptp(rest)) < 1e-12  # same r, s, k and tier: only age differs
    notes = []
    if ranking_fixed:
        notes.append(
            "a refit of B0 and s cannot change the ranking (AUC) here: the facts differ only by age;"
            " a better shape or input for freshness is a separate decision"
        )
    losses = (
        f"held-out log loss {h_fit:.4f} fitted, {h_cur:.4f} current, {h_base:.4f} constant rate;"
        f" the fit won {won} of {len(rows)} held-out blocks"
    )
    age_predicts = True
    if h_fit < h_cur - vfit.ADOPT_MARGIN and h_fit < h_base and majority:
        decision = "adopt"
        reason = f"{why}; on later instants they were not fitted to they predict better: {losses}"
    else:
        decision = "keep-current"
        if h_base <= h_fit:
            age_predicts = h_base > h_cur  # the current freshness beats a flat rate: keep it
            reason = (
                f"{why}, but {CONSTANT_WINS} ({losses}); {rate:.0%} of facts survived the horizon"
                f" while trust cannot exceed {ceiling:.2f} here (the gate and the base rate cap it)"
            )
        elif h_fit >= h_cur - vfit.ADOPT_MARGIN:
            reason = f"{why}, but they do not beat the current constants on later instants: {losses}"
        else:
            reason = f"{why}, but they do not win in most held-out blocks: {losses}"
    if not age_predicts:
        notes.append(
            f"{NO_AGE}: flattening freshness (B0 {FLAT['freshness.b0']}, s {FLAT['freshness.scale']}) stops calling old facts stale"
        )
    return HistoryFit(
        decision,
        reason,
        names,
        current,
        proposed,
        h_cur,
        h_fit,
        h_base,
        rows,
        won,
        auc_cur,
        auc_new,
        rate,
        ceiling,
        age_predicts,
        ranking_fixed,
        notes,
    )
