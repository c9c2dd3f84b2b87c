"""Constants fitted to a person's own verdicts (SPEC 11.3), adopted only when they predict
verdicts they were not fitted to better than the constants in use.

Each verdict logged the inputs its score was computed from (`score_before`: B, r, s, k and
the effective tier), so a candidate set of constants is scored by replaying section 2 over
those inputs; nothing is re-read from the store. The fit is penalised maximum likelihood
(a Gaussian prior around the current constants, so a few verdicts move them a little) by
scipy's bounded L-BFGS-B with the analytic gradient. scipy is the `[fit]` extra: without it
the table still shows and the decision says how to install it.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from synapse_tui.core.base.config import Config
from synapse_tui.core.trust.reliability import CLIP, log_loss

# (config name, prior sigma, lower bound, upper bound), SPEC 11.3; the order is the vector's
CONSTANTS = (
    ("freshness.b0", 1.0, -6.0, 2.0),
    ("freshness.scale", 0.5, 0.1, 5.0),
    ("confidence.prior_weight", 1.0, 0.5, 20.0),
    ("confidence.base_rate_auto", 0.1, 0.05, 0.99),
    ("confidence.base_rate_human", 0.1, 0.05, 0.99),
    ("confidence.base_rate_signed", 0.1, 0.05, 0.99),
    ("supersession.gamma", 0.1, 0.05, 0.95),
)
NAMES = tuple(c[0] for c in CONSTANTS)
SIGMA = np.array([c[1] for c in CONSTANTS])
BOUNDS = [(c[2], c[3]) for c in CONSTANTS]
TIER_RATES = ("confidence.base_rate_auto", "confidence.base_rate_human", "confidence.base_rate_signed")

# the ladder: how much data fits which constants (SPEC 11.3)
MIN_VERDICTS = 30
MIN_EACH_OUTCOME = 5
MIN_FOR_CONFIDENCE = 100
MIN_SUPERSEDED = 10  # verdicts with k >= 1 before gamma is fitted
FOLDS = 5
ADOPT_MARGIN = 0.001  # held-out log loss the fit must win by: a tie is not worth a change
INSTALL_HINT = "pip install 'synapse-tui[fit]'"


@dataclass(frozen=True)
class Inputs:
    """A verdict's logged score inputs, one array each, aligned with its outcome y."""

    B: np.ndarray
    r: np.ndarray
    s: np.ndarray
    k: np.ndarray
    tier: np.ndarray  # effective tier, 0 auto, 1 human, 2 signed

    def take(self, idx: np.ndarray) -> Inputs:
        return Inputs(self.B[idx], self.r[idx], self.s[idx], self.k[idx], self.tier[idx])

    def __len__(self) -> int:
        return len(self.B)


def current_constants(config: Config) -> dict[str, float]:
    """The fitted constants' values in `config`, by their config names."""
    out = {}
    for name in NAMES:
        section, key = name.split(".")
        out[name] = float(getattr(getattr(config, section), key))
    return out


def with_constants(config: Config, values: dict[str, float]) -> Config:
    for name, value in values.items():
        section, key = name.split(".")
        config = config.with_values(section, **{key: float(value)})
    return config


def _gates(config: Config) -> np.ndarray:
    g = config.provenance
    return np.array([g.gate_auto, g.gate_human, g.gate_signed])


def _vector(values: dict[str, float]) -> np.ndarray:
    return np.array([values[name] for name in NAMES], dtype=np.float64)


def replay(values: dict[str, float], inp: Inputs, config: Config) -> np.ndarray:
    """Trust of each verdict's inputs under `values` (section 2 over B, r, s, k, tier)."""
    return _parts(_vector(values), inp, _gates(config))[0]


def _parts(theta: np.ndarray, inp: Inputs, gates: np.ndarray):
    b0, scale, w, a_auto, a_human, a_signed, gamma = theta
    a = np.array([a_auto, a_human, a_signed])[inp.tier]
    num = inp.r + a * w
    total = inp.r + inp.s + w
    z = (inp.B - b0) / scale
    with np.errstate(over="ignore"):
        fresh = 1.0 / (1.0 + np.exp(-z))
    p = (num / total) * fresh * gamma**inp.k * gates[inp.tier]
    return p, a, num, total, z, fresh


class _Problem:
    """One fit's verdicts, with what every evaluation would otherwise recompute done once
    (each row's tier as a 0/1 column, its gate, the rows at each depth, the outcome's
    coefficients): L-BFGS-B calls the loss a few dozen times per fit, and the check fits
    five times. Plain products and sums only, besides one exp and one log per row."""

    def __init__(self, inp: Inputs, y: np.ndarray, theta0: np.ndarray, free: np.ndarray, gates: np.ndarray):
        self.n = len(y)
        self.B, self.r = inp.B, inp.r
        self.rs = inp.r + inp.s
        self.tiers = [(inp.tier == t).astype(np.float64) for t in range(3)]
        k = inp.k.astype(np.int64)
        self.depths = [(d, np.flatnonzero(k == d)) for d in range(1, int(k.max(initial=0)) + 1)]
        self.kf = inp.k.astype(np.float64)
        self.gate = gates[inp.tier]
        self.miss = 1.0 - y  # log likelihood of a row: log(miss + q * sign)
        self.sign = 2.0 * y - 1.0
        self.y = y
        self.theta0, self.free = theta0, free
        self.sigma = SIGMA

    def loss(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """Mean clipped NLL plus the prior, and its gradient in the free constants."""
        b0, scale, w, _, _, _, gamma = theta
        a, num, total = self._confidence(theta)
        z = (self.B - b0) / scale
        fresh = _sigmoid(z)
        nll, g = self._fit(self._trust(num, total, fresh, gamma))
        g /= self.n
        gf = g * (1.0 - fresh)
        inv_num = 1.0 / num
        gn = g * inv_num
        grad = np.empty(7)
        grad[0] = -float(gf.sum()) / scale
        grad[1] = -float((gf * z).sum()) / scale
        self._shared_grad(grad, theta, g, gn, a, total)
        return self._with_prior(theta, nll, grad)

    def _confidence(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each row's base rate a, and its confidence's numerator and total."""
        _, _, w, a_auto, a_human, a_signed, _ = theta[:7]
        m0, m1, m2 = self.tiers
        a = m0 * a_auto + m1 * a_human + m2 * a_signed
        return a, a * w + self.r, self.rs + w

    def _trust(self, num: np.ndarray, total: np.ndarray, fresh: np.ndarray, gamma: float) -> np.ndarray:
        p = num / total * fresh * self.gate
        for d, rows in self.depths:
            p[rows] *= gamma**d
        return p

    def _fit(self, p: np.ndarray) -> tuple[float, np.ndarray]:
        """The mean NLL of trusts `p`, and dL/dlog p per row times n: -1 for a holds verdict,
        p/(1-p) for a miss; zero where p was clipped."""
        q = np.clip(p, CLIP, 1 - CLIP)
        nll = -float(np.log(self.miss + q * self.sign).sum()) / self.n
        g = self.miss * q / (1.0 - q) - self.y
        g[(p <= CLIP) | (p >= 1 - CLIP)] = 0.0
        return nll, g

    def _shared_grad(
        self,
        grad: np.ndarray,
        theta: np.ndarray,
        g: np.ndarray,
        gn: np.ndarray,
        a: np.ndarray,
        total: np.ndarray,
    ) -> None:
        """The gradient in the prior weight, the three base rates and gamma (grad[2:7])."""
        w, gamma = theta[2], theta[6]
        grad[2] = float((gn * a).sum()) - float((g / total).sum())
        grad[3:6] = [float((gn * m).sum()) * w for m in self.tiers]
        grad[6] = float((g * self.kf).sum()) / gamma

    def _with_prior(self, theta: np.ndarray, nll: float, grad: np.ndarray) -> tuple[float, np.ndarray]:
        prior = (theta - self.theta0) / self.sigma
        loss = nll + float(np.sum(prior[self.free] ** 2)) / self.n
        grad += 2 * prior / self.sigma / self.n
        return loss, grad[self.free]


class _GroupedProblem(_Problem):
    """`_Problem` where the rows of group g >= 1 (a kind, SPEC 14) have their own B0 and s:
    theta is the seven constants, then (b0, scale) per kind; group 0 uses the global ones.
    One exp and one log per row still; the kinds' gradients are two bincounts."""

    def __init__(self, inp, y, theta0, free, gates, group: np.ndarray, kinds: int):
        super().__init__(inp, y, theta0, free, gates)
        self.group, self.kinds = group, kinds
        self.sigma = np.concatenate([SIGMA, np.tile([SIGMA[0], SIGMA[1]], kinds)])
        self.rest = None  # with every shared constant held: each row's trust but freshness, once
        if not free[:7].any():
            _, num, total = self._confidence(theta0)
            self.rest = num / total * self.gate * theta0[6] ** self.kf

    def loss(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        if self.rest is not None:
            return self._freshness_only(theta)
        gamma = theta[6]
        a, num, total = self._confidence(theta)
        sr, z, fresh = self._freshness(theta)
        nll, g = self._fit(self._trust(num, total, fresh, gamma))
        g /= self.n
        gf = g * (1.0 - fresh)
        gn = g / num
        grad = np.empty(len(theta))
        self._kinds_grad(grad, gf / sr, gf * z / sr)
        self._shared_grad(grad, theta, g, gn, a, total)
        return self._with_prior(theta, nll, grad)

    def _freshness(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each row's scale, z and freshness under its group's B0 and s."""
        b0s = np.concatenate([[theta[0]], theta[7::2]])
        scales = np.concatenate([[theta[1]], theta[8::2]])
        sr = scales[self.group]
        z = (self.B - b0s[self.group]) / sr
        return sr, z, _sigmoid(z)

    def _kinds_grad(self, grad: np.ndarray, by_row_b0: np.ndarray, by_row_s: np.ndarray) -> None:
        """The gradient in each group's B0 and s (grad[0:2] and grad[7:])."""
        size = self.kinds + 1
        by_b0 = -np.bincount(self.group, by_row_b0, size)
        by_s = -np.bincount(self.group, by_row_s, size)
        grad[0], grad[1] = by_b0[0], by_s[0]
        grad[7::2], grad[8::2] = by_b0[1:], by_s[1:]

    def _freshness_only(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """`loss` when only the kinds' B0 and s are free: freshness is all that changes."""
        sr, z, fresh = self._freshness(theta)
        nll, g = self._fit(self.rest * fresh)
        gf = g * (1.0 - fresh) / (self.n * sr)
        grad = np.zeros(len(theta))
        self._kinds_grad(grad, gf, gf * z)
        return self._with_prior(theta, nll, grad)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    # |z| capped at 50: beyond it freshness is 1 to the last bit, or so small that p is
    # clipped, and the cap keeps subnormal floats (a hundred times slower) out of the sums
    return 1.0 / (1.0 + np.exp(np.clip(-z, -50.0, 50.0)))


def fit_grouped(
    inp: Inputs,
    y: np.ndarray,
    current: dict[str, float],
    names: list[str],
    config: Config,
    group: np.ndarray,
    kinds: list[tuple[float, float]],
    start: tuple[dict[str, float], list[tuple[float, float]]] | None = None,
) -> tuple[dict[str, float], list[tuple[float, float]]]:
    """`fit_constants` with kinds: the rows of group g >= 1 are scored with kind g's own B0
    and s (`kinds[g - 1]` the prior's centre), fitted with `names` (the shared constants).
    Returns the shared constants and each kind's (b0, scale)."""
    theta0 = np.concatenate([_vector(current), np.array(kinds, dtype=np.float64).ravel()])
    free = np.concatenate([[name in names for name in NAMES], np.ones(2 * len(kinds), dtype=bool)])
    bounds_all = BOUNDS + [BOUNDS[0], BOUNDS[1]] * len(kinds)
    bounds = [b for b, f in zip(bounds_all, free, strict=True) if f]
    begin_theta = (
        theta0
        if start is None
        else np.concatenate([_vector(start[0]), np.array(start[1], dtype=np.float64).ravel()])
    )
    begin = np.clip(begin_theta[free], [b[0] for b in bounds], [b[1] for b in bounds])
    problem = _GroupedProblem(
        inp, np.asarray(y, dtype=np.float64), theta0, free, _gates(config), group, len(kinds)
    )
    theta = _minimize(problem, begin, bounds)
    shared = {name: float(v) for name, v in zip(NAMES, theta[:7], strict=True)}
    return shared, [(float(theta[7 + 2 * j]), float(theta[8 + 2 * j])) for j in range(len(kinds))]


def replay_grouped(
    shared: dict[str, float], kinds: list[tuple[float, float]], group: np.ndarray, inp: Inputs, config: Config
) -> np.ndarray:
    """`replay` where the rows of group g >= 1 have kind g's own (b0, scale)."""
    p = replay(shared, inp, config)
    for g, (b0, scale) in enumerate(kinds, start=1):
        rows = np.flatnonzero(group == g)
        if len(rows):
            p[rows] = replay(shared | {"freshness.b0": b0, "freshness.scale": scale}, inp.take(rows), config)
    return p


def fit_constants(
    inp: Inputs,
    y: np.ndarray,
    current: dict[str, float],
    names: list[str],
    config: Config,
    start: dict[str, float] | None = None,
) -> dict[str, float]:
    """The penalised maximum-likelihood values of `names`, every other constant held at
    `current` (the prior's centre); the search begins at `start` (default `current`).
    Raises ImportError when scipy is missing."""
    theta0 = _vector(current)
    free = np.array([name in names for name in NAMES])
    bounds = [b for b, f in zip(BOUNDS, free, strict=True) if f]
    begin = _vector(start or current)[free]
    begin = np.clip(begin, [b[0] for b in bounds], [b[1] for b in bounds])
    problem = _Problem(inp, np.asarray(y, dtype=np.float64), theta0, free, _gates(config))
    theta = _minimize(problem, begin, bounds)
    out = dict(current)
    for name, value, f in zip(NAMES, theta, free, strict=True):
        if f:
            out[name] = float(value)
    return out


def _minimize(problem: _Problem, begin: np.ndarray, bounds: list) -> np.ndarray:
    """Every constant of `problem`, its free ones fitted by L-BFGS-B from `begin`."""
    from scipy.optimize import minimize

    def fun(x: np.ndarray):
        theta = problem.theta0.copy()
        theta[problem.free] = x
        return problem.loss(theta)

    theta = problem.theta0.copy()
    theta[problem.free] = minimize(fun, begin, jac=True, method="L-BFGS-B", bounds=bounds).x
    return theta


def ladder(inp: Inputs, y: np.ndarray) -> tuple[list[str], str]:
    """Which constants this many verdicts can fit, and why (SPEC 11.3); [] for none."""
    n, holds = len(y), int(np.sum(y))
    misses = n - holds
    if n < MIN_VERDICTS or holds < MIN_EACH_OUTCOME or misses < MIN_EACH_OUTCOME:
        return [], (
            f"too few verdicts to fit: {n} ({holds} holds, {misses} wrong or replaced);"
            f" a fit needs {MIN_VERDICTS}, with {MIN_EACH_OUTCOME} of each outcome"
        )
    if n < MIN_FOR_CONFIDENCE:
        return ["freshness.b0", "freshness.scale"], (
            f"{n} verdicts fit B0 and s only (the confidence constants from {MIN_FOR_CONFIDENCE})"
        )
    names = ["freshness.b0", "freshness.scale", "confidence.prior_weight"]
    for t, name in enumerate(TIER_RATES):
        mine = y[inp.tier == t]
        if np.sum(mine) >= MIN_EACH_OUTCOME and len(mine) - np.sum(mine) >= MIN_EACH_OUTCOME:
            names.append(name)
    if int(np.sum(inp.k >= 1)) >= MIN_SUPERSEDED:
        names.append("supersession.gamma")
    return names, f"{n} verdicts fit {len(names)} constants"


def folds(n: int, parts: int = FOLDS) -> list[np.ndarray]:
    """Consecutive blocks of positions 0..n-1, the first ones one larger when n does not
    divide (the verdicts are in time order, so each block is scored by the past only)."""
    return np.array_split(np.arange(n), parts)


@dataclass(frozen=True)
class Decision:
    """What a fit decided (SPEC 11.3's `fit` object): the constants it fitted, the current
    and proposed values, and the held-out log losses the decision rests on."""

    decision: str  # adopt | keep-current | too-few
    reason: str
    fitted: list[str]
    current: dict[str, float]
    proposed: dict[str, float]
    heldout_log_loss_current: float | None = None
    heldout_log_loss_fitted: float | None = None
    heldout_log_loss_baseline: float | None = None

    def decision_json(self, **after_proposed: Any) -> dict[str, Any]:
        """The object's keys in SPEC order, `after_proposed` between the values and the losses."""
        return {
            "decision": self.decision,
            "reason": self.reason,
            "fitted": self.fitted,
            "current": self.current,
            "proposed": self.proposed,
            **after_proposed,
            "heldout_log_loss_current": self.heldout_log_loss_current,
            "heldout_log_loss_fitted": self.heldout_log_loss_fitted,
            "heldout_log_loss_baseline": self.heldout_log_loss_baseline,
        }


@dataclass(frozen=True)
class FitResult(Decision):
    """A fit to people's verdicts, with each held-out fold's figures."""

    folds: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return self.decision_json()


def fit(inp: Inputs, y: np.ndarray, config: Config) -> FitResult:
    """The ladder, the time-ordered held-out check and the keep-current rule over verdicts
    already in time order (ties by audit seq)."""
    y = np.asarray(y, dtype=np.float64)
    current = current_constants(config)
    names, why = ladder(inp, y)
    if not names:
        return FitResult("too-few", why, [], current, dict(current))
    try:
        import scipy.optimize  # noqa: F401
    except ImportError:
        return FitResult(
            "keep-current", f"not fitted: the fit needs scipy ({INSTALL_HINT})", [], current, dict(current)
        )
    with _one_blas_thread():
        return _checked_fit(inp, y, config, current, names, why)


def _one_blas_thread() -> contextlib.AbstractContextManager:
    """L-BFGS-B's own steps are BLAS calls on vectors of seven: OpenBLAS wakes its threads
    for them, and they spin on the cores numpy's arrays need (2.7 s against 0.8 s for
    100,000 verdicts on two busy cores). threadpoolctl comes with the `[fit]` extra."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _checked_fit(
    inp: Inputs, y: np.ndarray, config: Config, current: dict[str, float], names: list[str], why: str
) -> FitResult:
    cur_losses: list[float] = []
    fit_losses: list[float] = []
    base_losses: list[float] = []
    rows: list[dict[str, Any]] = []
    blocks = folds(len(y))
    start = current  # each fold's search begins where the previous one ended: fewer steps
    for j in range(1, len(blocks)):
        train = np.concatenate(blocks[:j])
        test = blocks[j]
        tout = inp.take(test)
        start = fit_constants(inp.take(train), y[train], current, names, config, start)
        rate = float(np.mean(y[train]))
        row: dict[str, Any] = {
            "train": len(train),
            "test": len(test),
            "current": log_loss(replay(current, tout, config), y[test]),
            "fitted": log_loss(replay(start, tout, config), y[test]),
            "baseline": log_loss(np.full(len(test), rate), y[test]),
        }
        rows.append(row)
        cur_losses.append(row["current"])
        fit_losses.append(row["fitted"])
        base_losses.append(row["baseline"])
    proposed = fit_constants(inp, y, current, names, config, start)
    h_cur, h_fit, h_base = (float(np.mean(v)) for v in (cur_losses, fit_losses, base_losses))
    if h_fit < h_cur - ADOPT_MARGIN and h_fit < h_base:
        decision = "adopt"
        reason = (
            f"{why}; on verdicts they were not fitted to they predict better: held-out log loss"
            f" {h_fit:.4f} against {h_cur:.4f} for the current constants and {h_base:.4f} for a constant rate"
        )
    else:
        decision = "keep-current"
        beaten = "the current constants" if h_fit >= h_cur - ADOPT_MARGIN else "a constant rate"
        reason = (
            f"{why}, but they do not beat {beaten} on verdicts they were not fitted to: held-out"
            f" log loss {h_fit:.4f} fitted, {h_cur:.4f} current, {h_base:.4f} constant rate"
        )
    return FitResult(decision, reason, names, current, proposed, h_cur, h_fit, h_base, rows)
