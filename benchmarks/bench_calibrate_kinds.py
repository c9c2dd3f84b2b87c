"""Figures for issue 41 point 2 (freshness constants per kind, SPEC 14): the cost of the
per-kind fit against the global fit, in the same run.
Run: python benchmarks/bench_calibrate_kinds.py [N] [DIR]  (DIR keeps the built store)

A store of N facts (default 100,000) made over two years, as bench_calibrate_history.py's
(creation uniform over 730 days, a fifth replacing an earlier one, a third reinforced, a
third `human`), each fact also of one of three kinds (Claude Code's `type` in provenance:
user, feedback, project), so every kind has samples enough to be fitted. Timed, 90-day
horizon, best of `REPEAT`:

1. reading every fact's kind from provenance (`read_kinds`);
2. the global fit alone (`fit_history` without kinds) over the samples: the baseline;
3. the global and per-kind fits (`fit_history` with kinds);
4. `history_report` whole (samples, kinds, both fits), against the same without kinds.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_calibrate_history import END  # noqa: E402
from bench_calibrate_history import build as history_store  # noqa: E402

from synapse_tui.core.base.config import Config
from synapse_tui.core.review.backtest import fact_kinds, history
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.fit import Inputs
from synapse_tui.core.trust.history_fit import fit_history
from synapse_tui.core.trust.kinds import read_kinds

KINDS = ("user", "feedback", "project")
REPEAT = 3


def build(folder: Path, n: int) -> Path:
    """bench_calibrate_history's store, each fact of one of three Claude Code types."""
    return history_store(
        folder, n, "kinds", lambda i: {"x-source": "claude-code", "x-claude-code-type": KINDS[i % 3]}
    )


def best(fn) -> tuple[float, object]:
    times, out = [], None
    for _ in range(REPEAT):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    folder = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp())
    folder.mkdir(parents=True, exist_ok=True)
    db = build(folder, n)
    with Store.open(db, readonly=True) as store:
        memory = Memory(store, Config(), END)
        t_read, _ = best(lambda: read_kinds(store, len(memory)))
        t_samples, h = best(lambda: history(memory, 90))
        codes, names = fact_kinds(memory)
        inp = Inputs(h.B, h.r, h.s, h.k, h.tier)
        cfg = Config()

        def glob():
            return fit_history(inp, h.y, h.instant, h.instants, 90, cfg)

        def kinds():
            return fit_history(
                inp, h.y, h.instant, h.instants, 90, cfg, kind=codes[h.position], kind_names=names
            )

        t_global, g = best(glob)
        t_kinds, k = best(kinds)

        def adopted_path():
            """The per-kind step as it runs when the global fit was adopted (the shared
            constants refitted with the kinds'): this store's global decision, marked adopt."""
            from dataclasses import replace

            from synapse_tui.core.trust import history_fit as hf

            base, fold_fits = hf._global(inp, h.y, h.instant, h.instants, 90, cfg, 5)
            forced = replace(base, decision="adopt", fitted=base.fitted or list(hf.FRESHNESS))
            t = time.perf_counter()
            hf._fit_kinds(
                inp, h.y, h.instant, h.instants, 90, cfg, 5, codes[h.position], names, forced, fold_fits
            )
            return time.perf_counter() - t

        t_adopt = min(adopted_path() for _ in range(REPEAT))
    print(
        f"store of {n:,} facts, three kinds; {len(h):,} samples at {len(h.instants)} instants (90-day horizon)"
    )
    print(f"reading every fact's kind                 {t_read:6.2f} s")
    print(f"the samples (as-of scoring per instant)   {t_samples:6.2f} s")
    print(f"global fit alone (baseline)               {t_global:6.2f} s")
    print(
        f"global and per-kind fits                  {t_kinds:6.2f} s  ({t_kinds / t_global:.2f}x the global fit)"
    )
    print(
        f"global fit + the per-kind step as when the global fit is adopted  {t_global + t_adopt:6.2f} s"
        f"  ({(t_global + t_adopt) / t_global:.2f}x the global fit)"
    )
    whole_g = t_samples + t_global
    whole_k = t_samples + t_read + t_kinds
    print(
        f"history fit whole: {whole_g:6.2f} s global, {whole_k:6.2f} s with kinds ({whole_k / whole_g:.2f}x)"
    )
    print(f"  global decision {g.decision}; kinds: {[(x.kind, x.decision) for x in k.kinds.kinds]}")


if __name__ == "__main__":
    main()
