"""Calibration of freshness (SPEC 2.2): set B0 and s from the store's own histogram of B."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from synapse_tui.core.base.config import Config, load_config, read_config_text, write_config
from synapse_tui.core.base.errors import ConfigError
from synapse_tui.core.base.safefile import UnsafeFile, write_atomic
from synapse_tui.core.trust.score import BANDS, score


@dataclass(frozen=True)
class Histogram:
    edges: list[float]
    counts: list[int]


# The middle half of the head facts' B narrower than this is one age (one import, one
# commit: a Markdown memory bank read from git spans 0.00006, its facts written seconds
# apart): the s SPEC 2.2 proposes from it ranks the facts by those seconds. It is still
# proposed (SPEC 2.2 keeps s only for a spread of 0), with a word of warning before `w`.
# At d = 0.5 it is ages within 2% of each other.
MIN_SPREAD = 0.01
ONE_AGE = (
    "The head facts are one age (the middle half of B within 0.01): an s drawn from them"
    " ranks them by the seconds between their writes (none at all: s is kept)."
)


@dataclass(frozen=True)
class Calibration:
    heads: int
    current_b0: float
    current_scale: float
    proposed_b0: float
    proposed_scale: float
    ages: Histogram
    activations: Histogram
    bands_before: dict[str, int]
    bands_after: dict[str, int]
    one_age: bool = False  # the head facts are one age (`MIN_SPREAD`): the proposed s is warned of

    def proposed_config(self, config: Config) -> Config:
        return config.with_values("freshness", b0=self.proposed_b0, scale=self.proposed_scale)


def _hist(values: np.ndarray, bins: int | np.ndarray) -> Histogram:
    if len(values) == 0:
        return Histogram([], [])
    counts, edges = np.histogram(values, bins=bins)
    return Histogram([float(e) for e in edges], [int(c) for c in counts])


def _band_counts(band: np.ndarray) -> dict[str, int]:
    counts = np.bincount(band, minlength=len(BANDS))
    return {name: int(c) for name, c in zip(BANDS, counts, strict=True)}


def calibrate(memory, bins: int = 12) -> Calibration:
    """Propose B0 = median(B) and s = IQR(B) / (2 ln 3) over head facts (k = 0), so the
    middle half of the store spans freshness 0.25..0.75; keep s when the spread is 0, and
    warn of it when the head facts are one age (the spread below `MIN_SPREAD`)."""
    sc, cfg = memory.scores, memory.config
    heads = sc.k == 0
    B = sc.B[heads]
    f = cfg.freshness
    if len(B):
        b0 = float(np.median(B))
        q1, q3 = np.percentile(B, [25, 75])
        spread = float(q3 - q1)
        scale = spread / (2 * math.log(3)) if spread > 0 else f.scale
    else:
        b0, scale, spread = f.b0, f.scale, 0.0
    proposed = cfg.with_values("freshness", b0=b0, scale=scale)
    after = score(memory.arrays, proposed, sc.now, memory.k)
    ages = sc.age_days
    age_bins = np.array([0, 1, 7, 30, 90, 180, 365, 730, max(731.0, float(ages.max(initial=0)) + 1)])
    return Calibration(
        heads=int(heads.sum()),
        current_b0=f.b0,
        current_scale=f.scale,
        proposed_b0=b0,
        proposed_scale=scale,
        ages=_hist(ages, age_bins),
        activations=_hist(sc.B, bins),
        bands_before=_band_counts(sc.band),
        bands_after=_band_counts(after.band),
        one_age=bool(len(B)) and spread < MIN_SPREAD,
    )


def bands_under(memory, config: Config) -> dict[str, int]:
    """How many facts each band would hold if every fact were scored with `config` now:
    what adopting new constants would do, shown before it is done."""
    return _band_counts(score(memory.arrays, config, memory.scores.now, memory.k).band)


@dataclass(frozen=True)
class ConfigWrite:
    """A config file as it was before a write (None: there was none), so the write can be
    taken back exactly: comments, order and every other key as they were."""

    path: Path
    before: str | None


def write_undoable(config: Config, path: str | os.PathLike[str]) -> ConfigWrite:
    """`write_config`, remembering what it replaced."""
    p = Path(path)
    before = read_config_text(p)
    write_config(config, p)
    return ConfigWrite(p, before)


def undo_write(change: ConfigWrite) -> Config:
    """Put the config file back as it was before `change`; the config it now holds."""
    if change.before is None:
        change.path.unlink(missing_ok=True)
    else:  # no link followed, no predictable temporary name (safefile.write_atomic)
        try:
            write_atomic(change.path, change.before.encode("utf-8"))
        except UnsafeFile as exc:
            raise ConfigError(f"{exc.strerror}; nothing written") from None
    return load_config(change.path)
