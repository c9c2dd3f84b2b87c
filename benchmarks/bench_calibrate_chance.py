"""How often the history fit (SPEC 14) adopts by chance, and how often it finds a real change:
20 small generated histories (35 facts to start, 240 days, 30-day horizon, a few hundred
samples each) whose survival follows the defaults, and 20 following other constants
(B0 -2.6, s 0.5), from tests/core/history_stores.py.
Run: python benchmarks/bench_calibrate_chance.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.review.backtest import history_report  # noqa: E402
from synapse_tui.core.review.memory import Memory  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from tests.core.history_stores import DEFAULTS, OTHER, generate  # noqa: E402


def main() -> None:
    d = Path(tempfile.mkdtemp())
    for name, truth in (("defaults", DEFAULTS), ("other constants", OTHER)):
        adopt = margin = n = samples = 0
        for seed in range(20):
            src, now = generate(
                d / f"{name}{seed}.jsonl", truth, start=35, arrivals=0.05, days=240, seed=seed
            )
            with Store.open(d / f"{name}{seed}.db", create=True) as store:
                import_facts(store, parse_file(src), str(src))
                report, _ = history_report(Memory(store, Config(), now), 30)
            f = report["fit"]
            if f["decision"] == "too-few":
                continue
            n += 1
            samples += report["samples"]
            adopt += f["decision"] == "adopt"
            margin += (
                f["heldout_log_loss_fitted"] < f["heldout_log_loss_current"] - 0.001
                and f["heldout_log_loss_fitted"] < f["heldout_log_loss_baseline"]
            )
        print(
            f"survival following {name}: {n} stores (mean {samples / max(n, 1):.0f} samples):"
            f" adopted {adopt}; on the margin alone (no majority of blocks) {margin}"
        )


if __name__ == "__main__":
    main()
