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

from dataclasses import dataclass, field, replace
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
MIN_KIND_SAMPLES = 100  # a kind's own B0 and s are fitted from this many samples (and the ladder's)
FRESHNESS = ["freshness.b0", "freshness.scale"]


@dataclass(frozen=True)
class HistoryFit(vfit.Decision):
    """A fit to the store's history (SPEC 14), with its time-ordered held-out blocks."""

    blocks: list[dict[str, Any]] = field(default_factory=list)
    blocks_won: int = 0
    auc_current: float | None = None
    auc_proposed: float | None = None
    survival_rate: float | None = None
    ceiling: float | None = None
    age_predicts: bool = True
    ranking_fixed: bool = False
    notes: list[str] = field(default_factory=list)
    kinds: KindsFit | None = None  # constants per kind of fact (SPEC 14); None: no fact has a kind

    @property
    def constants(self) -> dict[str, float]:
        """The constants that score facts after this decision."""
        return self.proposed if self.decision == "adopt" else self.current

    @property
    def adopted_kinds(self) -> list[KindFit]:
        """The kinds whose own B0 and s won held out (what `--write` stores)."""
        return [] if self.kinds is None else [k for k in self.kinds.kinds if k.decision == "adopt"]

    @property
    def adopts(self) -> bool:
        """Whether anything is adopted: the global constants, a kind's, or both."""
        return self.decision == "adopt" or bool(self.adopted_kinds)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.decision_json(constants=self.constants),
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
            "kinds": None if self.kinds is None else self.kinds.to_json(),
        }


@dataclass(frozen=True)
class KindFit:
    """One kind's own B0 and s (SPEC 14): fitted only when the kind has enough samples, and
    adopted by the held-out rule of the global fit against the constants that would score it
    otherwise (`current`: its configured ones, else the global ones after the decision)."""

    kind: str
    samples: int
    survived: int
    decision: str  # adopt | keep-current | too-few
    reason: str
    own: bool  # the config holds this kind's constants already
    current: dict[str, float]  # b0, scale that score it without this fit
    proposed: dict[str, float]
    heldout_log_loss_current: float | None = None
    heldout_log_loss_fitted: float | None = None
    heldout_log_loss_baseline: float | None = None
    heldout_blocks: int = 0
    heldout_blocks_won: int = 0

    @property
    def constants(self) -> dict[str, float]:
        return self.proposed if self.decision == "adopt" else self.current

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "samples": self.samples,
            "survived": self.survived,
            "decision": self.decision,
            "reason": self.reason,
            "from": "kind" if self.decision == "adopt" or self.own else "global",
            "current": self.current,
            "proposed": self.proposed,
            "constants": self.constants,
            "heldout_log_loss_current": self.heldout_log_loss_current,
            "heldout_log_loss_fitted": self.heldout_log_loss_fitted,
            "heldout_log_loss_baseline": self.heldout_log_loss_baseline,
            "heldout_blocks": self.heldout_blocks,
            "heldout_blocks_won": self.heldout_blocks_won,
        }


@dataclass(frozen=True)
class KindsFit:
    """Every kind's decision, and the held-out log loss of the samples scored with the kinds'
    adopted constants (the rest with the global ones) against the global constants alone."""

    kinds: list[KindFit]
    without_kind: int  # samples of facts with no kind (always the global constants)
    heldout_log_loss_global: float | None = None
    heldout_log_loss_per_kind: float | None = None
    # the shared constants fitted with the adopted kinds' own (None: no kind adopted): what
    # `--write` stores beside them
    shared: dict[str, float] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kinds": [k.to_json() for k in self.kinds],
            "without_kind": self.without_kind,
            "min_samples": MIN_KIND_SAMPLES,
            "heldout_log_loss_global": self.heldout_log_loss_global,
            "heldout_log_loss_per_kind": self.heldout_log_loss_per_kind,
            "shared": self.shared,
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
    kind: np.ndarray | None = None,
    kind_names: tuple[str, ...] = (),
) -> HistoryFit:
    """The decision of SPEC 14 over samples in time order of their instant (`instant`
    indexes `instants`, epoch seconds). `kind`: each sample's kind code into `kind_names`
    (-1 none): each kind with enough samples is then fitted its own B0 and s as well
    (`_fit_kinds`). Samples of a kind the config holds constants for are left out of the
    global fit (the global B0 and s do not score them)."""
    y = np.asarray(y, dtype=np.float64)
    own = _own(kind, kind_names, config)
    if own is not None and own.any():
        keep = np.flatnonzero(~own)
        result, fold_fits = _global(
            inp.take(keep), y[keep], instant[keep], instants, horizon_days, config, blocks
        )
        result = replace(
            result,
            notes=[
                *result.notes,
                f"{int(own.sum())} samples of kinds with their own constants are left out of the global fit",
            ],
        )
    else:
        result, fold_fits = _global(inp, y, instant, instants, horizon_days, config, blocks)
    if kind is None or not (kind >= 0).any():
        return result
    kinds = _fit_kinds(
        inp, y, instant, instants, horizon_days, config, blocks, kind, kind_names, result, fold_fits
    )
    return replace(result, kinds=kinds)


def _own(kind: np.ndarray | None, kind_names: tuple[str, ...], config: Config) -> np.ndarray | None:
    """Per sample: scored by its kind's own constants (the config holds them)."""
    if kind is None or not config.freshness.kind:
        return None
    held = np.array([config.freshness.constants_for(name)[2] for name in kind_names] + [False])
    return held[kind]


def _folds(
    instant: np.ndarray, instants: np.ndarray, horizon_days: float, blocks: int
) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(block j, training samples, test samples) per held-out block of instants: a fold
    trains only on instants whose horizon ended before its first test instant."""
    parts = np.array_split(np.arange(len(instants)), min(blocks, len(instants))) if len(instants) else []
    out = []
    for j in range(1, len(parts)):
        test_at = instants[parts[j][0]]
        train_inst = np.flatnonzero(instants + horizon_days * DAY <= test_at)  # the embargo
        out.append(
            (j, np.flatnonzero(np.isin(instant, train_inst)), np.flatnonzero(np.isin(instant, parts[j])))
        )
    return out


def _global(
    inp, y, instant, instants, horizon_days, config, blocks
) -> tuple[HistoryFit, dict[int, dict[str, float]]]:
    """The global fit and its decision; with each held-out block's fitted constants."""
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
        return HistoryFit("too-few", why, [], current, dict(current), survival_rate=rate, ceiling=ceiling), {}
    folds = [
        (j, train, test)
        for j, train, test in _folds(instant, instants, horizon_days, blocks)
        if len(test) and vfit.ladder(inp.take(train), y[train])[0]
    ]
    if not folds:
        return (
            HistoryFit(
                "too-few",
                f"{why}, but the history is too short to hold any out: {len(instants)} instants, and a"
                f" fold trains only on instants whose {horizon_days:g}-day horizon ended before it",
                [],
                current,
                dict(current),
                survival_rate=rate,
                ceiling=ceiling,
            ),
            {},
        )
    try:
        import scipy.optimize  # noqa: F401
    except ImportError:
        return (
            HistoryFit(
                "keep-current",
                f"not fitted: the fit needs scipy ({vfit.INSTALL_HINT})",
                [],
                current,
                dict(current),
            ),
            {},
        )
    with vfit._one_blas_thread():
        return _checked(inp, y, config, current, names, why, folds, rate, ceiling)


def _checked(
    inp, y, config, current, names, why, folds, rate, ceiling
) -> tuple[HistoryFit, dict[int, dict[str, float]]]:
    rows: list[dict[str, Any]] = []
    start = current
    fold_fits: dict[int, dict[str, float]] = {}
    for j, train, test in folds:
        tout = inp.take(test)
        start = fold_fits[j] = vfit.fit_constants(inp.take(train), y[train], current, names, config, start)
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
    fit = HistoryFit(
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
    return fit, fold_fits


def _fit_kinds(
    inp: vfit.Inputs,
    y: np.ndarray,
    instant: np.ndarray,
    instants: np.ndarray,
    horizon_days: float,
    config: Config,
    blocks: int,
    kind: np.ndarray,
    kind_names: tuple[str, ...],
    base: HistoryFit,
    fold_fits: dict[int, dict[str, float]],
) -> KindsFit:
    """Each kind's own B0 and s, by the global fit's rules. A kind is fitted when it has
    MIN_KIND_SAMPLES samples and the ladder's outcomes; the eligible kinds' B0 and s are
    fitted jointly with the shared constants the global fit fits (one model: a kind's rows
    use its own B0 and s, every other row the global ones), on the same embargoed folds. A
    kind is adopted when, on its held-out samples, that model beats the constants that score
    it otherwise (the global decision's, or the kind's configured ones) by 0.001 and a
    constant rate, in most blocks; then the model with just the adopted kinds must beat the
    global decision on every held-out sample the same way, else none is adopted."""
    folds = [  # the global fit's held-out blocks: a test, and a training set the ladder fits
        (j, tr, te)
        for j, tr, te in _folds(instant, instants, horizon_days, blocks)
        if len(te) and vfit.ladder(inp.take(tr), y[tr])[0]
    ]
    k = _Kinds(inp, y, kind, kind_names, config, base, fold_fits, folds)
    eligible = k.eligible()
    without = int(np.sum(kind < 0))
    if not eligible or not folds:
        for code in eligible:
            k.set(code, "too-few", "but no held-out block")
        return KindsFit(list(k.fits.values()), without)
    joint = k.joint(eligible)
    adopted = [code for code in eligible if k.decide(code, k.held_out(code, joint))]
    if adopted and adopted != eligible:  # the model with only the adopted kinds of their own
        joint = k.joint(adopted)
    g_losses = [_loss(k.p_fallback(j, te), y[te]) for j, _, te in folds]
    k_losses = [_loss(joint[j][1], y[te]) for j, _, te in folds]
    h_g, h_k = float(np.mean(g_losses)), float(np.mean(k_losses))
    won_all = sum(a < b for a, b in zip(k_losses, g_losses, strict=True))
    shared: dict[str, float] | None = None
    if adopted and not (h_k < h_g - vfit.ADOPT_MARGIN and won_all * 2 > len(folds)):
        for code in adopted:
            fit = k.fits[kind_names[code]]
            k.fits[fit.kind] = replace(
                fit,
                decision="keep-current",
                reason=(
                    f"{fit.reason}; but over every sample the kinds' own constants do not beat the global"
                    f" ones held out ({h_k:.4f} against {h_g:.4f}, won {won_all} of {len(folds)} blocks):"
                    f" it {_fallback(fit.own)}"
                ),
            )
        adopted = []
    if adopted:
        shared = k.final(adopted, joint[folds[-1][0]][0])
    return KindsFit(list(k.fits.values()), without, h_g, h_k, shared)


class _Kinds:
    """`_fit_kinds`' steps over one set of samples: which kinds are fitted, the joint model
    per fold, each kind's held-out losses and decision, and the final fit."""

    def __init__(self, inp, y, kind, kind_names, config, base, fold_fits, folds):
        self.inp, self.y, self.kind, self.names, self.config = inp, y, kind, kind_names, config
        self.base, self.fold_fits, self.folds = base, fold_fits, folds
        self.fits: dict[str, KindFit] = {}
        # the shared constants move with the kinds' only when the global fit was adopted: else
        # the kinds' own B0 and s are weighed on top of the constants the global fit kept
        self.shared_names = list(base.fitted) if base.decision == "adopt" else []

    def eligible(self) -> list[int]:
        """The kinds with samples enough for their own B0 and s (the others: too-few)."""
        out = []
        for code, name in enumerate(self.names):
            mine = np.flatnonzero(self.kind == code)
            if not len(mine):
                continue
            b0, scale, own = self.config.freshness.constants_for(name)
            current = (
                {"freshness.b0": b0, "freshness.scale": scale} if own else _freshness(self.base.constants)
            )
            n, survived = len(mine), int(np.sum(self.y[mine]))
            if n < MIN_KIND_SAMPLES or not vfit.ladder(self.inp.take(mine), self.y[mine])[0]:
                reason = (
                    f"{n} samples ({survived} survived): a kind's own B0 and s need {MIN_KIND_SAMPLES}"
                    f" samples with {vfit.MIN_EACH_OUTCOME} of each outcome; it {_fallback(own)}"
                )
                self.fits[name] = KindFit(name, n, survived, "too-few", reason, own, current, dict(current))
            else:
                self.fits[name] = KindFit(name, n, survived, "keep-current", "", own, current, dict(current))
                out.append(code)
        return out

    def set(self, code: int, decision: str, why: str) -> None:
        fit = self.fits[self.names[code]]
        reason = f"{fit.samples} samples, {why}; it {_fallback(fit.own)}"
        self.fits[fit.kind] = replace(fit, decision=decision, reason=reason)

    def comparator(self, j: int | None) -> dict[str, float]:
        """The global constants that score a sample when no kind's own do (fold j's)."""
        if j is None or self.base.decision != "adopt":
            return self.base.constants
        return self.fold_fits.get(j, self.base.current)

    def p_fallback(self, j: int | None, rows: np.ndarray) -> np.ndarray:
        """Trust of `rows` without the fit's kinds: the global decision's, a kind's configured."""
        vals = self.comparator(j)
        p = vfit.replay(vals, self.inp.take(rows), self.config)
        for code, name in enumerate(self.names):
            b0, scale, own = self.config.freshness.constants_for(name)
            at = np.flatnonzero(self.kind[rows] == code)
            if own and len(at):
                own_vals = vals | {"freshness.b0": b0, "freshness.scale": scale}
                p[at] = vfit.replay(own_vals, self.inp.take(rows[at]), self.config)
        return p

    def joint(self, codes: list[int]):
        return _joint_folds(
            self.inp,
            self.y,
            self.config,
            self.kind,
            self.names,
            codes,
            self.folds,
            self.shared_names,
            self.base,
            self.fold_fits,
        )

    def held_out(self, code: int, joint) -> list[dict[str, Any]]:
        """Per held-out block with enough of this kind to train on: the kind's test samples'
        log loss under the fallback, the joint model and its training survival rate."""
        rows = []
        y, kind = self.y, self.kind
        for j, tr, te in self.folds:
            at = np.flatnonzero(kind[te] == code)
            mine_tr = tr[kind[tr] == code]
            if not len(at) or not vfit.ladder(self.inp.take(mine_tr), y[mine_tr])[0]:
                continue
            yt = y[te[at]]
            rows.append(
                {
                    "current": log_loss(self.p_fallback(j, te[at]), yt),
                    "fitted": log_loss(joint[j][1][at], yt),
                    "baseline": log_loss(np.full(len(at), float(np.mean(y[mine_tr]))), yt),
                }
            )
        return rows

    def decide(self, code: int, rows: list[dict[str, Any]]) -> bool:
        """The kind's decision by the global fit's rule; True when adopted."""
        fit = self.fits[self.names[code]]
        if not rows:
            self.set(code, "too-few", "but too few in the early instants to hold any out")
            return False
        h_cur, h_fit, h_base = (
            float(np.mean([r[key] for r in rows])) for key in ("current", "fitted", "baseline")
        )
        won = sum(r["fitted"] < r["current"] for r in rows)
        losses = (
            f"held-out log loss {h_fit:.4f} its own, {h_cur:.4f} {'its current' if fit.own else 'the global'},"
            f" {h_base:.4f} constant rate; won {won} of {len(rows)} blocks"
        )
        adopt = h_fit < h_cur - vfit.ADOPT_MARGIN and h_fit < h_base and won * 2 > len(rows)
        if adopt:
            reason = f"{fit.samples} samples; its own B0 and s predict better on later instants: {losses}"
        else:
            reason = (
                f"{fit.samples} samples, but its own B0 and s do not win held out ({losses});"
                f" it {_fallback(fit.own)}"
            )
        self.fits[fit.kind] = replace(
            fit,
            decision="adopt" if adopt else "keep-current",
            reason=reason,
            heldout_log_loss_current=h_cur,
            heldout_log_loss_fitted=h_fit,
            heldout_log_loss_baseline=h_base,
            heldout_blocks=len(rows),
            heldout_blocks_won=won,
        )
        return adopt

    def final(self, adopted: list[int], start) -> dict[str, float]:
        """The model validated held out, fitted on every sample: the shared constants, and
        each adopted kind's own B0 and s (set in its proposal)."""
        fixed = [
            c
            for c, name in enumerate(self.names)
            if c not in adopted and self.config.freshness.constants_for(name)[2]
        ]
        keep = np.flatnonzero(~np.isin(self.kind, fixed)) if fixed else np.arange(len(self.y))
        group = _groups(self.kind, adopted)
        centre = _kind_centres(self.config, self.names, adopted, self.base)
        with vfit._one_blas_thread():
            shared, own_b0s = vfit.fit_grouped(
                self.inp.take(keep),
                self.y[keep],
                self.base.current,
                self.shared_names,
                self.config,
                group[keep],
                centre,
                start,
            )
        for code, (b0, scale) in zip(adopted, own_b0s, strict=True):
            fit = self.fits[self.names[code]]
            self.fits[fit.kind] = replace(fit, proposed={"freshness.b0": b0, "freshness.scale": scale})
        return shared


def _loss(p: np.ndarray, y: np.ndarray) -> float:
    """The log loss of a held-out block (never empty here)."""
    out = log_loss(p, y)
    return float("nan") if out is None else out


def _fallback(own: bool) -> str:
    return "keeps its own constants" if own else "is scored with the global constants"


def _freshness(values: dict[str, float]) -> dict[str, float]:
    return {k: values[k] for k in FRESHNESS}


def _groups(kind: np.ndarray, codes: list[int]) -> np.ndarray:
    """Per sample: 1 + the index in `codes` of its kind, 0 for any other."""
    table = np.zeros(int(kind.max(initial=0)) + 2, dtype=np.int64)  # the last entry: code -1
    for g, code in enumerate(codes, start=1):
        table[code] = g
    return table[kind]


def _kind_centres(config, kind_names, codes, base) -> list[tuple[float, float]]:
    """Each kind's prior centre: its configured B0 and s, else the current global ones."""
    out = []
    for c in codes:
        b0, scale, own = config.freshness.constants_for(kind_names[c])
        out.append((b0, scale) if own else (base.current["freshness.b0"], base.current["freshness.scale"]))
    return out


def _joint_folds(inp, y, config, kind, kind_names, codes, folds, shared_names, base, fold_fits):
    """Per fold j: the joint model (the kinds `codes` with their own B0 and s, the shared
    constants of the global ladder) fitted on its training samples, and its trust of the
    test samples. Kinds the config holds constants for and that are not in `codes` keep
    theirs (fixed; they are not in the fit's rows)."""
    out = {}
    start = None
    names = list(kind_names)
    fixed = {
        c: config.freshness.constants_for(names[c])
        for c in range(len(names))
        if c not in codes and config.freshness.constants_for(names[c])[2]
    }
    centre = _kind_centres(config, kind_names, codes, base)
    group = _groups(kind, codes)
    with vfit._one_blas_thread():
        for j, tr, te in folds:
            keep = tr[~np.isin(kind[tr], list(fixed))] if fixed else tr
            if start is None and j in fold_fits:  # the first search begins at the fold's global fit
                g = fold_fits[j]
                start = (g, [(g["freshness.b0"], g["freshness.scale"])] * len(codes))
            start = vfit.fit_grouped(
                inp.take(keep), y[keep], base.current, shared_names, config, group[keep], centre, start
            )
            shared, own_b0s = start
            p = vfit.replay_grouped(shared, own_b0s, group[te], inp.take(te), config)
            for c, (b0, scale, _) in fixed.items():
                at = np.flatnonzero(kind[te] == c)
                if len(at):
                    p[at] = vfit.replay(
                        shared | {"freshness.b0": b0, "freshness.scale": scale}, inp.take(te[at]), config
                    )
            out[j] = (start, p)
    return out


def replay_decided(
    fit: HistoryFit, inp: vfit.Inputs, kind: np.ndarray, kind_names: tuple[str, ...], config: Config
) -> np.ndarray:
    """Each sample's trust under the constants after the decisions: the global ones, and a
    kind's own where the config holds them or the fit adopted them."""
    p = vfit.replay(fit.constants, inp, config)
    decided = {
        k.kind: k.constants for k in (fit.kinds.kinds if fit.kinds else []) if k.decision == "adopt" or k.own
    }
    for code, name in enumerate(kind_names):
        b0, scale, own = config.freshness.constants_for(name)
        vals = decided.get(name) or ({"freshness.b0": b0, "freshness.scale": scale} if own else None)
        rows = np.flatnonzero(kind == code)
        if vals is not None and len(rows):
            p[rows] = vfit.replay(fit.constants | vals, inp.take(rows), config)
    return p


def written_kinds(fit: HistoryFit, config: Config) -> tuple[tuple[str, float, float], ...]:
    """`[freshness.kind]` after `--write`: the config's kinds, with the adopted ones set."""
    table = {name: (b0, scale) for name, b0, scale in config.freshness.kind}
    for k in fit.adopted_kinds:
        table[k.kind] = (k.proposed["freshness.b0"], k.proposed["freshness.scale"])
    return tuple(sorted((name, b0, scale) for name, (b0, scale) in table.items()))


def adopted_config(fit: HistoryFit, config: Config) -> tuple[Config, dict[str, float]]:
    """The config after `--write` of an adopting fit, and the constants it changes by name
    (a kind's as `freshness.kind.NAME.b0|scale`): with adopted kinds, the shared constants
    fitted with them and their own B0 and s (the model that won held out); else the global
    fit's proposal."""
    kinds = fit.adopted_kinds
    if kinds and fit.kinds is not None and fit.kinds.shared is not None:
        shared_names = fit.fitted
        values = {name: fit.kinds.shared[name] for name in shared_names}
        new = vfit.with_constants(config, values).with_values("freshness", kind=written_kinds(fit, config))
        for k in kinds:
            values[f"freshness.kind.{k.kind}.b0"] = k.proposed["freshness.b0"]
            values[f"freshness.kind.{k.kind}.scale"] = k.proposed["freshness.scale"]
        return new, values
    values = {name: fit.proposed[name] for name in fit.fitted}
    return vfit.with_constants(config, values), values
