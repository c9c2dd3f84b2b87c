"""Generated histories with a known truth for the history fit (SPEC 14).

Day by day, each live fact is replaced (a new fact naming it in `supersedes`) with the daily
hazard that makes its chance of surviving a horizon of H days its trust under the `truth`
constants: 1 - p^(1/H). New facts arrive each day and some facts are reinforced, so B varies
by more than age; half the facts are `human`, half `auto`, so the ranking is not age alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from synapse_tui.core.base.clock import format_time, parse_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.trust.fit import current_constants

DAY = 86400.0
T0 = parse_time("2025-01-01T00:00:00Z")
DEFAULTS = current_constants(Config())
OTHER = DEFAULTS | {"freshness.b0": -2.6, "freshness.scale": 0.5}


def truth_trust(values: dict[str, float], B: np.ndarray, human: np.ndarray) -> np.ndarray:
    a = np.where(human, values["confidence.base_rate_human"], values["confidence.base_rate_auto"])
    gate = np.where(human, 0.9, 0.8)
    fresh = 1.0 / (1.0 + np.exp(-(B - values["freshness.b0"]) / values["freshness.scale"]))
    return a * fresh * gate  # r = s = 0: confidence is the base rate


def _deaths(rng, truth, created, human, reinforced, end, horizon):
    """Each fact's death instant (inf: outlives `end`): a cumulative hazard L on a daily grid
    from creation with L(m + H) - L(m) = -ln p(m), so a fact alive m days after its creation
    survives the next H days with probability p(m), its trust under `truth` then."""
    days = int((end - created.min()) / DAY) + 2
    h = int(horizon)
    m = np.arange(days + h)
    t = created[:, None] + m[None, :] * DAY
    ages = np.floor(np.maximum((t - created[:, None]) / DAY, 1.0 / 1440.0)).clip(1.0 / 1440.0)
    total = ages**-0.5
    for j in range(reinforced.shape[1]):
        ev = reinforced[:, j : j + 1]
        age = np.floor(np.maximum((t - ev) / DAY, 1.0 / 1440.0)).clip(1.0 / 1440.0)
        total = total + np.where(t >= ev, age**-0.5, 0.0)
    p = (
        np.clip(truth_trust(truth, np.log(total), human[:, None]), 1e-9, 1.0)
        if truth
        else np.full(t.shape, 0.97)
    )
    lam = np.zeros_like(p)
    lam[:, : h + 1] = m[: h + 1][None, :] * (-np.log(p[:, :1])) / h
    for k in range(h + 1, p.shape[1]):
        lam[:, k] = lam[:, k - h] - np.log(p[:, k - h])
    e = rng.exponential(size=len(created))
    hit = lam >= e[:, None]
    first = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
    return np.where(first >= 0, created + first * DAY - rng.uniform(0, DAY, len(created)), np.inf)


def generate(
    path: Path,
    truth: dict[str, float] | None,
    days: int = 360,
    start: int = 300,
    arrivals: float = 2.0,
    horizon: float = 30.0,
    seed: int = 1,
    kinds: dict[str, dict[str, float]] | None = None,
) -> tuple[Path, float]:
    """Write the history as interchange JSON Lines; returns (path, now). `truth` None: every
    fact survives each horizon with probability 0.97 whatever its age. `kinds`: each fact
    is of one of these kinds at random (Claude Code's `type` in its provenance), its
    survival following that kind's constants (`truth` unused); a fact that replaces another
    is of the same kind."""
    rng = np.random.default_rng(seed)
    end = T0 + days * DAY
    n_new = rng.poisson(arrivals * days)
    batch = np.concatenate([T0 - rng.uniform(0, 120, start) * DAY, T0 + rng.uniform(0, days, n_new) * DAY])
    replaces = np.full(len(batch), -1)
    names = list(kinds or {})
    kind = rng.integers(0, max(1, len(names)), len(batch))
    objs: list[dict] = []
    while len(batch):
        n = len(batch)
        human = rng.random(n) < 0.5
        reinforced = batch[:, None] + np.cumsum(rng.exponential(60.0, (n, 3)), axis=1) * DAY
        if kinds:
            death = np.full(n, np.inf)
            for j, name in enumerate(names):
                at = np.flatnonzero(kind == j)
                if len(at):
                    death[at] = _deaths(rng, kinds[name], batch[at], human[at], reinforced[at], end, horizon)
        else:
            death = _deaths(rng, truth, batch, human, reinforced, end, horizon)
        base = len(objs)
        for i in range(n):
            obj = {
                "id": f"f{base + i}",
                "text": f"fact {base + i}",
                "created_at": format_time(float(batch[i])),
                "tier": "human" if human[i] else "auto",
            }
            ev = [format_time(float(x)) for x in reinforced[i] if x < min(death[i], end)]
            if ev:
                obj["reinforced_at"] = ev
            if replaces[i] >= 0:
                obj["supersedes"] = f"f{replaces[i]}"
            if kinds:
                obj["provenance"] = {"x-source": "claude-code", "x-claude-code-type": names[kind[i]]}
            objs.append(obj)
        dead = np.flatnonzero(death < end)
        batch = death[dead] + rng.uniform(0, 600, len(dead))
        replaces = dead + base
        kind = kind[dead]
    with path.open("w", encoding="utf-8") as out:
        for obj in objs:
            out.write(json.dumps(obj) + "\n")
    return path, end
