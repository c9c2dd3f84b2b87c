"""Replaced-fact suggestions against git's own edits, on real memory histories (issue 39).

Each repository's flat.jsonl (every version of every bullet a fact, no links) is imported
into a real store; `standing()` gives the suggestions; truth.jsonl's `edit` lines are what
git's diff paired. Precision and recall per repository, pooled per split (dev: where the
weights were set by hand; heldout: never looked at while setting them), beside a plain
character-trigram baseline in the same run (best newer fact of the same note, Dice >= 0.5).
Also: the bundled sample with its declared links removed (how many come back), and hard
negatives (same subject, not a replacement).

    python benchmarks/bench_suggest_real.py [--corpus DIR] [--show-false N] [--write-results]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Results  # noqa: E402

from synapse_tui.core.base.clock import parse_time  # noqa: E402
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.review.suggest import Item, ReplacedFinder  # noqa: E402
from synapse_tui.core.review.suggest_text import Text, dice  # noqa: E402
from synapse_tui.core.review.suggestions import standing  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BASELINE_DICE = 0.5  # the plain baseline's cut: half the trigrams shared


def baseline(facts: list[dict]) -> set[tuple[str, str]]:
    """Plain character n-grams: each fact's most similar newer fact of the same note."""
    by_note: dict[str | None, list[tuple[float, str, Text]]] = defaultdict(list)
    for f in facts:
        by_note[f.get("note")].append((parse_time(f["created_at"]), f["id"], Text.of(f["text"])))
    out = set()
    for group in by_note.values():
        for t0, fid, text in group:
            best = max(
                ((dice(text.grams, t.grams), j) for t1, j, t in group if t1 > t0 and t.norm != text.norm),
                default=None,
            )
            if best is not None and best[0] >= BASELINE_DICE:
                out.add((fid, best[1]))
    return out


def ours(flat: Path) -> tuple[set[tuple[str, str]], dict[tuple[str, str], str], float]:
    """Our suggestions for one flat.jsonl, through a real store: pairs, their why, seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        with Store.open(db, create=True) as store:
            import_facts(store, parse_file(flat), str(flat))
        with Store.open(db, readonly=True) as store:
            t = time.perf_counter()
            found = standing(store, ["replaced"]).found
            took = time.perf_counter() - t
    return {(s.fact, s.other) for s in found}, {(s.fact, s.other): s.why for s in found}, took


def pr(got: set, truth: set) -> tuple[int, int, int]:
    return len(got & truth), len(got), len(truth)


def fmt(tp: int, n_got: int, n_truth: int) -> str:
    p = tp / n_got if n_got else 1.0
    r = tp / n_truth if n_truth else 1.0
    return f"P {p:.3f} R {r:.3f} ({tp}/{n_got} suggested, {n_truth} edits)"


def corpus_run(root: Path, show_false: int) -> dict[str, list[tuple[int, int, int]]]:
    manifest = json.loads((root / "manifest.json").read_text())
    pooled: dict[str, list[tuple[int, int, int]]] = defaultdict(lambda: [(0, 0, 0), (0, 0, 0)])
    for repo in manifest:
        folder = root / repo["name"]
        if not (folder / "truth.jsonl").exists() or not (folder / "flat.jsonl").exists():
            continue
        truth_lines = [json.loads(line) for line in (folder / "truth.jsonl").open()]
        truth = {(t["old"], t["new"]) for t in truth_lines if t["kind"] == "edit"}
        facts = [json.loads(line) for line in (folder / "flat.jsonl").open()]
        got, why, took = ours(folder / "flat.jsonl")
        base = baseline(facts)
        a, b = pr(got, truth), pr(base, truth)
        split = repo.get("split", "dev")
        for k, v in ((0, a), (1, b)):
            pooled[split][k] = tuple(x + y for x, y in zip(pooled[split][k], v, strict=True))
        print(
            f"{split:8} {repo['name'][:40]:40} {len(facts):6} facts {took:6.2f} s  ours {fmt(*a)}  base {fmt(*b)}"
        )
        if show_false and split == "dev":
            text = {f["id"]: f["text"] for f in facts}
            for old, new in sorted(got - truth)[:show_false]:
                print(
                    f"    FALSE {old} -> {new}: {text[old][:90]!r} -> {text[new][:90]!r}\n          {why[(old, new)]}"
                )
            for old, new in sorted(truth - got)[:show_false]:
                print(f"    MISSED {old} -> {new}: {text[old][:90]!r} -> {text[new][:90]!r}")
    for split, (a, b) in sorted(pooled.items()):
        print(f"POOLED {split:8} ours {fmt(*a)}   baseline {fmt(*b)}")
    return pooled


def sample_run() -> tuple[int, int, int]:
    """The bundled sample with its `supersedes` removed: how many links come back."""
    facts = [json.loads(line) for line in (ROOT / "sample_db" / "facts.jsonl").open()]
    truth = {(f["supersedes"], f["id"]) for f in facts if f.get("supersedes")}
    items = []
    for f in facts:
        created = parse_time(f["created_at"])
        seen = max((parse_time(t) for t in f.get("reinforced_at") or []), default=None)
        items.append(
            Item(
                f["id"],
                f["text"],
                created,
                f.get("note"),
                tuple(f.get("entities") or ()),
                last_seen=seen if seen is not None and seen > created else None,
            )
        )
    got = {(s.fact, s.other) for s in ReplacedFinder.build(items).suggestions()}
    res = pr(got, truth)
    print(f"SAMPLE links removed: {fmt(*res)}")
    return res


HARD_NEGATIVES = [  # same subject, neither replaces the other
    ("the project uses Postgres", "Postgres runs on port 5433"),
    ("deploys go through the release train", "the release train leaves every Tuesday"),
    ("Alice owns the billing service", "the billing service has a runbook in docs/billing.md"),
    ("run tests with `pytest -q`", "tests need a running Redis"),
    ("the API is written in Go", "the API's rate limit is 600 requests per minute"),
    ("use ruff for linting", "use ruff format for formatting"),
    ("the frontend uses React 18", "the frontend tests use Playwright"),
    ("CI runs on GitHub Actions", "CI caches the pip downloads"),
    ("never commit secrets", "never push to main directly"),
    ("staging is at staging.example.com", "production is at example.com"),
]
HARD_POSITIVES = [  # the same thing said differently
    ("deploys run on Fridays", "deploys run on Tuesdays since March"),
    ("the API rate limit is 600 requests per minute", "the API rate limit is now 900 requests per minute"),
    ("Postgres runs on port 5432", "Postgres runs on port 5433"),
    ("run tests with `pytest -q`", "run tests with `uv run pytest -q`"),
    ("use black for formatting", "use ruff format for formatting instead of black"),
]


def hard_run() -> tuple[int, int]:
    def suggested(a: str, b: str) -> bool:
        items = [Item("old", a, 0.0, "n"), Item("new", b, 1.0, "n")]
        return bool(ReplacedFinder.build(items).suggestions())

    neg = sum(suggested(a, b) for a, b in HARD_NEGATIVES)
    pos = sum(suggested(a, b) for a, b in HARD_POSITIVES)
    print(
        f"HARD negatives suggested: {neg}/{len(HARD_NEGATIVES)}; positives found: {pos}/{len(HARD_POSITIVES)}"
    )
    return neg, pos


def premise_run() -> tuple[float, float, int]:
    """MCP `search` on the bundled sample (its declared links kept): for every superseded
    fact, a query phrased with its text must name the chain's current fact in
    `stale_premise`; a query phrased with the current fact's text should carry none."""
    from synapse_tui.core.agent import Recall
    from synapse_tui.core.base.clock import Clock
    from synapse_tui.core.base.config import config_for
    from synapse_tui.core.ingest.sample import ensure_sample

    path = str(ensure_sample())
    facts = {f["id"]: f for f in map(json.loads, (ROOT / "sample_db" / "facts.jsonl").open())}
    successor: dict[str, str] = {}
    for f in facts.values():
        if f.get("supersedes"):
            successor.setdefault(f["supersedes"], f["id"])

    def head(fid: str) -> str:
        while fid in successor:
            fid = successor[fid]
        return fid

    with Store.open(path, readonly=True) as store:
        recall = Recall(store, config_for(path), Clock.from_option("2026-12-01T00:00:00Z"))
        named = warned = 0
        for old in successor:
            premise = recall.search(facts[old]["text"], 10).get("stale_premise")
            named += bool(premise and premise["current"] == head(old))
            warned += "stale_premise" in recall.search(facts[head(old)]["text"], 10)
        recall.close()
    n = len(successor)
    print(
        f"MCP stale_premise on the sample: outdated wording names the current fact {named}/{n}"
        f" ({named / n:.1%}); current wording warned {warned}/{n} ({warned / n:.1%})"
    )
    return named / n, warned / n, n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=os.environ.get("SYNAPSE_CORPUS", "/work/corpus"))
    ap.add_argument("--show-false", type=int, default=0)
    ap.add_argument("--write-results", action="store_true")
    args = ap.parse_args()
    results = Results("bench_suggest_real.py")
    root = Path(args.corpus)
    if (root / "manifest.json").exists():
        pooled = corpus_run(root, args.show_false)
        for split, (a, b) in sorted(pooled.items()):
            for name, (tp, n_got, n_truth) in (("ours", a), ("char-trigram baseline", b)):
                results.add(f"{split} precision, {name}", tp / max(1, n_got), unit="")
                results.add(f"{split} recall, {name}", tp / max(1, n_truth), unit="")
    tp, n_got, n_truth = sample_run()
    results.add("sample, links removed: links back", tp, unit=f"of {n_truth}")
    results.add("sample, links removed: precision", tp / max(1, n_got), unit="")
    named, warned, n = premise_run()
    results.add(f"MCP: outdated wording names the current fact ({n} chains)", named * 100, unit="%")
    results.add("MCP: current wording warned anyway", warned * 100, unit="%")
    neg, pos = hard_run()
    results.add("hard negatives suggested", neg, unit=f"of {len(HARD_NEGATIVES)}")
    results.add("hard positives found", pos, unit=f"of {len(HARD_POSITIVES)}")
    if args.write_results:
        results.save()


if __name__ == "__main__":
    main()
