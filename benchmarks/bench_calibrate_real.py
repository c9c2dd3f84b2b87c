"""Figures for issue 41 on real memory: the history fit (SPEC 14) per repository of the
real-memory corpus ($SYNAPSE_CORPUS, default /work/corpus; see its FORMAT.md).
Run: python benchmarks/bench_calibrate_real.py [HORIZON_DAYS ...]  (default 90 30)

Each OWNER__NAME/replay (its memory files' git history, replayed) is imported with
`synapse-tui import --from git-notes` into a temporary store, and
`synapse-tui calibrate --backtest --fit --json` is run with the clock pinned at the replay's
last commit. Per repository and horizon: the split (dev / heldout), instants, samples, the
survival rate, AUC and held-out log loss of the defaults, of the fit and of a constant
rate, the blocks the fit won, and the decision. The check the issue asks for: no adopted
fit is worse held out than the defaults.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CORPUS = Path(os.environ.get("SYNAPSE_CORPUS", "/work/corpus"))


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "synapse_tui", *args], capture_output=True, text=True)


def last_commit(replay: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(replay), "log", "-1", "--format=%cI"], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def num(v, places=3):
    return "n/a" if v is None else f"{v:.{places}f}"


def main() -> None:
    horizons = [float(h) for h in sys.argv[1:]] or [90.0, 30.0]
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    tmp = Path(tempfile.mkdtemp())
    rows = []
    for entry in manifest:
        name = entry["name"]
        replay = CORPUS / name / "replay"
        db = tmp / f"{name}.db"
        imp = cli("import", "--from", "git-notes", str(replay), "--db", str(db))
        if imp.returncode != 0:
            print(f"{name}: import failed: {imp.stderr.strip()[:200]}")
            continue
        now = last_commit(replay)
        for h in horizons:
            out = cli(
                "calibrate", str(db), "--backtest", "--fit", "--horizon", f"{h:g}", "--now", now, "--json"
            )
            if out.returncode != 0:
                print(f"{name}: calibrate failed: {out.stderr.strip()[:200]}")
                continue
            d = json.loads(out.stdout)
            f = d["fit"]
            rows.append((name, entry["split"], h, d, f))
    print(
        "| repository | split | H | instants | samples | survived | AUC | held-out log loss defaults / fit / constant | blocks won | decision |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    worse = 0
    for name, split, h, d, f in rows:
        rate = d["survived"] / d["samples"] if d["samples"] else None
        print(
            f"| {name} | {split} | {h:g} | {d['instants']} | {d['samples']} | {num(rate, 2)} |"
            f" {num(f['auc_current'], 2) if 'auc_current' in f else num(d['auc'], 2)}"
            f" -> {num(f.get('auc_proposed'), 2)} |"
            f" {num(f['heldout_log_loss_current'])} / {num(f['heldout_log_loss_fitted'])} /"
            f" {num(f['heldout_log_loss_baseline'])} |"
            f" {f.get('heldout_blocks_won', 0)}/{f.get('heldout_blocks', 0)} | {f['decision']}"
            + (" (constant rate wins)" if f.get("age_predicts") is False else "")
            + (" (ranking fixed)" if f.get("ranking_fixed") else "")
            + " |"
        )
        if f["decision"] == "adopt" and f["heldout_log_loss_fitted"] > f["heldout_log_loss_current"]:
            worse += 1
    for split in ("dev", "heldout"):
        mine = [r for r in rows if r[1] == split]
        counts = {}
        for r in mine:
            counts[(r[2], r[4]["decision"])] = counts.get((r[2], r[4]["decision"]), 0) + 1
        print(f"{split}: " + ", ".join(f"H={h:g} {dec} {c}" for (h, dec), c in sorted(counts.items())))
    print(f"adopted fits worse held out than the defaults: {worse}")
    kinds_table(rows)


def kinds_table(rows) -> None:
    """Constants per kind (SPEC 14, issue 41 point 2): per repository and horizon, each kind's
    samples and decision, and the held-out log loss of the samples scored per kind (adopted
    kinds with their own B0 and s) against the global constants alone."""
    print()
    print(
        "| repository | split | H | kinds (samples: decision) | held-out log loss global / per kind | adopted |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    adopted_runs = worse = 0
    for name, split, h, _, f in rows:
        k = f.get("kinds")
        if not k or not k["kinds"]:
            continue
        listed = ", ".join(f"{x['kind']} {x['samples']}: {x['decision']}" for x in k["kinds"])
        adopted = [x["kind"] for x in k["kinds"] if x["decision"] == "adopt"]
        g, pk = k["heldout_log_loss_global"], k["heldout_log_loss_per_kind"]
        print(f"| {name} | {split} | {h:g} | {listed} | {num(g)} / {num(pk)} | {', '.join(adopted) or '-'} |")
        if adopted:
            adopted_runs += 1
            worse += pk is not None and g is not None and pk > g
    print(
        f"repository-horizons with a kind adopted: {adopted_runs}; of those worse held out than global: {worse}"
    )


if __name__ == "__main__":
    main()
