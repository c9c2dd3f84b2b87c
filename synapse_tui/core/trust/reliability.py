"""Does "0.32, low" mean what it says? The reliability table of predictions against outcomes
(SPEC 11.2): equal-width bins with Wilson intervals, log loss, Brier, the constant-rate
baseline and AUC. Pure arithmetic over arrays; who made the verdicts is review's business.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

Z95 = 1.959963984540054  # the two-sided 95% normal quantile, as SPEC 11.2 fixes it
CLIP = 1e-6  # p is clipped to [CLIP, 1 - CLIP] before a logarithm: one sure miss is not infinite
# outcome kinds of a verdict (SPEC 11.1); y = 1 only for HOLDS
HOLDS, WRONG, REPLACED = 0, 1, 2
KINDS = ("holds", "wrong", "replaced")


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate: unlike rate ± z·se it stays inside [0, 1] and
    does not collapse to a point at 0 or n successes, which small bins hit often."""
    rate = successes / n
    z2 = z * z
    centre = (rate + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return centre - half, centre + half


def bin_count(n: int) -> int:
    """10 bins from 100 verdicts on, else 5: a bin of a handful says nothing."""
    return 10 if n >= 100 else 5


def bins(p: np.ndarray, kind: np.ndarray, count: int | None = None) -> list[dict[str, Any]]:
    """Equal-width bins on [0, 1]: bin i is [i/N, (i+1)/N), the last one closed at 1."""
    count = bin_count(len(p)) if count is None else count
    # against the edges i/N themselves, not floor(p * N): the product can round across one
    inner = np.arange(1, count) / count
    which = np.searchsorted(inner, np.asarray(p, dtype=np.float64), side="right").astype(np.int64)
    n = np.bincount(which, minlength=count)
    per_kind = [np.bincount(which[kind == k], minlength=count) for k in (HOLDS, WRONG, REPLACED)]
    sums = np.bincount(which, weights=p, minlength=count)
    out = []
    for i in range(count):
        row: dict[str, Any] = {
            "lo": i / count,
            "hi": (i + 1) / count,
            "n": int(n[i]),
            "holds": int(per_kind[0][i]),
            "wrong": int(per_kind[1][i]),
            "replaced": int(per_kind[2][i]),
            "mean_trust": None,
            "rate": None,
            "ci_low": None,
            "ci_high": None,
        }
        if n[i]:
            row["mean_trust"] = float(sums[i] / n[i])
            row["rate"] = float(per_kind[0][i] / n[i])
            row["ci_low"], row["ci_high"] = wilson(int(per_kind[0][i]), int(n[i]))
        out.append(row)
    return out


def log_loss(p: np.ndarray, y: np.ndarray) -> float | None:
    """Mean negative log likelihood, natural logarithms, p clipped."""
    if len(p) == 0:
        return None
    q = np.clip(p, CLIP, 1 - CLIP)
    return float(np.mean(-(y * np.log(q) + (1 - y) * np.log1p(-q))))


def brier(p: np.ndarray, y: np.ndarray) -> float | None:
    return float(np.mean((p - y) ** 2)) if len(p) else None


def baseline_log_loss(y: np.ndarray, rate: float | None = None) -> float | None:
    """The log loss of always predicting one rate (default: y's own mean): what a score must
    beat to say anything about one fact rather than about the store."""
    if len(y) == 0:
        return None
    rate = float(np.mean(y)) if rate is None else rate
    return log_loss(np.full(len(y), rate), y)


def auc(p: np.ndarray, y: np.ndarray) -> float | None:
    """P(a holds verdict has a higher p than a wrong or replaced one), ties one half: the
    Mann-Whitney U over midranks, so it costs a sort, not a pairwise comparison."""
    pos = int(np.sum(y == 1))
    neg = len(y) - pos
    if pos == 0 or neg == 0:
        return None
    values, inverse, counts = np.unique(p, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    midrank = ends - (counts - 1) / 2.0  # 1-based rank of each distinct value, ties averaged
    rank_sum = float(midrank[inverse][y == 1].sum())
    return (rank_sum - pos * (pos + 1) / 2.0) / (pos * neg)


# by_feature (SPEC 11.2): the factor inputs a verdict can be grouped by
AGE_EDGES = (0.0, 1.0, 7.0, 30.0, 90.0, 365.0)
AGE_KEYS = ("[0,1)", "[1,7)", "[7,30)", "[30,90)", "[90,365)", "[365,∞)")
REINFORCEMENT_KEYS = ("1", "2", "3-4", "5-8", "9+")


def age_keys(age_days: np.ndarray) -> np.ndarray:
    """Index into AGE_KEYS per age (a negative age, clock skew, goes to the first)."""
    return np.maximum(np.searchsorted(np.asarray(AGE_EDGES), age_days, side="right") - 1, 0)


def reinforcement_keys(count: np.ndarray) -> np.ndarray:
    return np.searchsorted(np.array([2, 3, 5, 9]), count, side="right")


def grouped(keys: list[str], which: np.ndarray, p: np.ndarray, y: np.ndarray) -> list[dict[str, Any]]:
    """`{key, n, holds, mean_trust, rate}` per key index in `which` (keys with no verdict
    are listed with n = 0, so a table keeps its rows)."""
    m = len(keys)
    n = np.bincount(which, minlength=m)
    holds = np.bincount(which, weights=y, minlength=m)
    sums = np.bincount(which, weights=p, minlength=m)
    return [
        {
            "key": key,
            "n": int(n[i]),
            "holds": int(holds[i]),
            "mean_trust": float(sums[i] / n[i]) if n[i] else None,
            "rate": float(holds[i] / n[i]) if n[i] else None,
        }
        for i, key in enumerate(keys)
    ]


def table(p: np.ndarray, y: np.ndarray, kind: np.ndarray) -> dict[str, Any]:
    """bins, log_loss, brier, baseline_log_loss and auc of predictions p against outcomes y."""
    p = np.asarray(p, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    return {
        "bins": bins(p, kind),
        "log_loss": log_loss(p, y),
        "brier": brier(p, y),
        "baseline_log_loss": baseline_log_loss(y),
        "auc": auc(p, y),
    }
