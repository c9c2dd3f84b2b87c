"""Replaced-fact suggestions against git's own edits, on real memory histories (issue 39).

Each repository's flat.jsonl (every version of every bullet a fact, no links) is imported
into a real store; `standing()` gives the suggestions. Precision and recall per repository,
pooled per split (dev: where the weights were set by hand; heldout: never looked at while
setting them; fresh: added later, run once per rule to check), beside a plain character-trigram baseline in the same run (best newer fact of
the same note, Dice >= 0.5).

Two stores, two truths:

- store "flat": flat.jsonl as it is: no links, no deletions (mem0 without inference, an
  MCP memory file). Store "deletions": the same facts, each carrying `deleted` at the instant
  its text left its file (what a store synced from git records, SPEC 9; taken from
  truth.jsonl's edit and delete lines: the commit its text went at, never which text
  replaced it).
- truth "git hunks": truth.jsonl's `edit` lines (a gone and a new block paired within one
  hunk of git's -U0 diff). Truth "+ moved": also a block gone and a block new in the same
  file and commit but in different hunks (moved and edited), paired by the corpus builder's
  own rule (`build_real_corpus.pairs`: word Dice or character ratio >= 0.5, best first, one
  to one) among what the hunks left unpaired.

Audit: benchmarks/audit_replaced.jsonl holds a person's verdicts, read from the two texts
alone (is the newer the older said differently?), each naming its pair by file and texts
(a rebuilt corpus renumbers its version ids), on random samples of git's edits (174: 84
held out, 90 dev) and of the flat store's suggestions when they were drawn (100: 60 held out,
40 dev): recall on the edits read as replacements, precision as read by eye.

Also: the bundled sample with its declared links removed (how many come back), MCP
`stale_premise` on the sample, and hard negatives (same subject, not a replacement).

    python benchmarks/bench_suggest_real.py [--corpus DIR] [--show-false N] [--causes]
        [--write-results]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_real_corpus import pairs as builder_pairs  # noqa: E402
from results import Results  # noqa: E402

from synapse_tui.core.base.clock import parse_time  # noqa: E402
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.review.suggest import Item, ReplacedFinder  # noqa: E402
from synapse_tui.core.review.suggest_text import Text, compare, dice  # noqa: E402
from synapse_tui.core.review.suggestions import standing  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BASELINE_DICE = 0.5  # the plain baseline's cut: half the trigrams shared
STORES = ("flat", "deletions")
TRUTHS = ("git hunks", "+ moved")


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


def left_at(truth: list[dict]) -> dict[str, str]:
    """When each version's text left its file (its last going): an edit's older side at
    the edit's commit, a deleted one at its deletion. Which text replaced it is not read."""
    gone: dict[str, str] = {}
    for t in truth:
        vid = t.get("old") if t["kind"] == "edit" else t.get("id") if t["kind"] == "delete" else None
        if vid is not None and parse_time(t["at"]) >= parse_time(gone.get(vid, t["at"])):
            gone[vid] = t["at"]
    return gone


def moved(truth: list[dict]) -> set[tuple[str, str]]:
    """Truth "+ moved": of each commit and file, the deleted versions and the new versions
    no hunk paired, paired by the corpus builder's own rule across hunks."""
    ver = {t["id"]: t for t in truth if t["kind"] == "version"}
    paired = {(t["new"], t["commit"]) for t in truth if t["kind"] == "edit"}
    gone: dict[tuple[str, str], list[str]] = defaultdict(list)
    came: dict[tuple[str, str], list[str]] = defaultdict(list)
    for t in truth:
        if t["kind"] == "delete":
            gone[(t["commit"], ver[t["id"]]["file"])].append(t["id"])
    for v in ver.values():
        if (v["id"], v["commit"]) not in paired:
            came[(v["commit"], v["file"])].append(v["id"])
    out = set()
    for key, olds in gone.items():
        news = came.get(key, [])
        for i, j in builder_pairs([ver[o]["text"] for o in olds], [ver[n]["text"] for n in news]):
            out.add((olds[i], news[j]))
    return out


def ours(
    flat: Path, deleted: dict[str, str] | None = None
) -> tuple[set[tuple[str, str]], dict[tuple[str, str], str], float]:
    """Our suggestions for one flat.jsonl, through a real store (its facts flagged `deleted`
    at the given instants): pairs, their why, seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        source = flat
        if deleted is not None:
            source = Path(tmp) / "flat.jsonl"
            with flat.open() as src, source.open("w") as out:
                for line in src:
                    fact = json.loads(line)
                    if fact["id"] in deleted:
                        fact["deleted"] = deleted[fact["id"]]
                    out.write(json.dumps(fact) + "\n")
        db = os.path.join(tmp, "s.db")
        with Store.open(db, create=True) as store:
            import_facts(store, parse_file(source), str(source))
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
    return f"P {p:.3f} R {r:.3f} ({tp}/{n_got})"


Tally = dict[tuple[str, str, str], tuple[int, int, int]]  # (split, who, truth) -> (tp, got, truth)


def corpus_run(root: Path, show_false: int, causes: bool, flat_found: dict | None = None) -> Tally:
    """Every repository of the corpus; `flat_found`, when given, receives each repository's
    flat-store suggestions ((old, new) pairs, by repository name)."""
    manifest = json.loads((root / "manifest.json").read_text())
    pooled: Tally = defaultdict(lambda: (0, 0, 0))
    why_missed: Counter[str] = Counter()
    why_false: dict[str, Counter[str]] = defaultdict(Counter)
    for repo in manifest:
        folder = root / repo["name"]
        if not (folder / "truth.jsonl").exists() or not (folder / "flat.jsonl").exists():
            continue
        truth_lines = [json.loads(line) for line in (folder / "truth.jsonl").open()]
        hunks = {(t["old"], t["new"]) for t in truth_lines if t["kind"] == "edit"}
        truths = {"git hunks": hunks, "+ moved": hunks | moved(truth_lines)}
        facts = [json.loads(line) for line in (folder / "flat.jsonl").open()]
        split = repo.get("split", "dev")
        found = {"baseline": (baseline(facts), {}, 0.0)}
        found["flat"] = ours(folder / "flat.jsonl")
        if flat_found is not None:
            flat_found[repo["name"]] = found["flat"][0]
        found["deletions"] = ours(folder / "flat.jsonl", left_at(truth_lines))
        line = [f"{split:8} {repo['name'][:32]:32} {len(facts):6} facts {len(hunks):4} edits"]
        for who, (got, _, took) in found.items():
            for name, truth in truths.items():
                key = (split, who, name)
                pooled[key] = tuple(x + y for x, y in zip(pooled[key], pr(got, truth), strict=True))  # type: ignore[assignment]
            tp, n_got, n_truth = pr(got, hunks)
            line.append(f"{who} {fmt(tp, n_got, n_truth)}" + (f" {took:.2f}s" if took else ""))
        print("  ".join(line))
        if causes and split == "dev":
            why_missed.update(miss_causes(facts, truth_lines, hunks - found["flat"][0]))
        if causes:
            why_false[split].update(false_causes(truth_lines, found["flat"][0] - hunks, truths["+ moved"]))
        if show_false and split == "dev":
            got, why, _ = found["flat"]
            text = {f["id"]: f["text"] for f in facts}
            for old, new in sorted(got - hunks)[:show_false]:
                print(
                    f"    FALSE {old} -> {new}: {text[old][:90]!r} -> {text[new][:90]!r}\n          {why[(old, new)]}"
                )
            for old, new in sorted(hunks - got)[:show_false]:
                print(f"    MISSED {old} -> {new}: {text[old][:90]!r} -> {text[new][:90]!r}")
    for (split, who, name), (tp, n_got, n_truth) in sorted(pooled.items()):
        print(f"POOLED {split:8} {who:10} truth {name:10} {fmt(tp, n_got, n_truth)} of {n_truth} edits")
    if causes:
        print("dev edits missed by the flat store, by cause:")
        for cause, n in why_missed.most_common():
            print(f"  {n:5}  {cause}")
        for split, counts in sorted(why_false.items()):
            print(f"{split} false suggestions of the flat store (not a git-hunk edit), by what git did:")
            for cause, n in counts.most_common():
                print(f"  {n:5}  {cause}")
    return pooled


def miss_causes(facts: list[dict], truth: list[dict], missed: set[tuple[str, str]]) -> Counter[str]:
    """Why each missed edit was missed, as a person reading the pair would put it."""
    section = {t["id"]: t["section"] for t in truth if t["kind"] == "version"}
    finder = ReplacedFinder.build(
        [
            Item(
                f["id"], f["text"], parse_time(f["created_at"]), f.get("note"), tuple(f.get("entities") or ())
            )
            for f in facts
        ]
    )
    best = {s.fact: s.other for s in finder.suggestions()}
    taken = set(best.values())
    out: Counter[str] = Counter()
    for old, new in missed:
        i, j = finder.by_id[old], finder.by_id[new]
        a, b = finder.texts[i], finder.texts[j]
        pair = compare(a, b)
        moved_heading = section[old] != section[new]
        if finder.items[j].created <= finder.items[i].created:
            cause = "the newer text was first written before the older (it came back): never suggested"
        elif not a.content & b.content:
            cause = "rewritten: no naming word in common"
        elif j not in finder._neighbours(i, newer=True):
            cause = "not met: shares few of the older's words, or 20 newer alike came first"
        elif old in best:
            cause = "paired with another newer fact (often a later version of the same bullet)"
        elif new in taken:
            cause = "its newer fact went to another older one"
        elif moved_heading:
            cause = "under another heading, scored below the threshold"
        elif pair.chars < 0.5:
            cause = "same heading, rewritten (under half the wording shared)"
        elif any(pair.changed_values):
            cause = "same heading, numbers or versions changed, below the threshold"
        else:
            cause = "same heading, below the threshold"
        out[cause] += 1
    return out


def false_causes(truth: list[dict], false: set[tuple[str, str]], moved_truth: set) -> Counter[str]:
    """What git did to the older fact of each suggestion that is not a git-hunk edit: read
    from truth.jsonl, never from the finder."""
    born = {t["id"]: parse_time(t["created_at"]) for t in truth if t["kind"] == "version"}
    left: dict[str, float] = {}
    for t in truth:
        vid = t.get("old") if t["kind"] == "edit" else t.get("id") if t["kind"] == "delete" else None
        if vid is not None:
            left[vid] = max(left.get(vid, 0.0), parse_time(t["at"]))
    out: Counter[str] = Counter()
    for old, new in false:
        gone = left.get(old)
        if (old, new) in moved_truth:
            cause = "an edit in another hunk (truth + moved: moved and edited)"
        elif gone is None:
            cause = "the older was never removed"
        elif abs(gone - born[new]) < 1.0:
            cause = "the older was removed when the newer came (the rule paired it elsewhere)"
        elif gone < born[new]:
            cause = "the older was already gone (a text that came back, or a later version)"
        else:
            cause = "the older stayed after the newer came"
        out[cause] += 1
    return out


AUDIT = Path(__file__).resolve().parent / "audit_replaced.jsonl"


def version_ids(root: Path) -> dict[str, dict[tuple[str, str], str]]:
    """Each repository's version ids by (file, text with white space runs as one space): a
    version's identity, which survives a rebuild that renumbers the ids."""
    out: dict[str, dict[tuple[str, str], str]] = {}
    for repo in json.loads((root / "manifest.json").read_text()):
        path = root / repo["name"] / "truth.jsonl"
        if path.exists():
            out[repo["name"]] = {
                (t["file"], " ".join(t["text"].split())): t["id"]
                for t in map(json.loads, path.open())
                if t["kind"] == "version"
            }
    return out


def audit_run(
    flat_found: dict[str, set[tuple[str, str]]],
    splits: dict[str, str],
    ids: dict[str, dict[tuple[str, str], str]] | None = None,
) -> dict[str, Counter[str]]:
    """A person's verdicts (AUDIT; `replaced` read from the two texts, an edit blind to the
    finder, a suggestion blind to git's pairing) on two random samples: edits git's diff
    paired (`drawn: edit`) and suggestions the flat store made when they were drawn (`drawn:
    suggested`). A verdict names its pair by the two versions' files and texts (`old_file`,
    `old_text`, `new_file`, `new_text`), looked up in `ids` (version_ids): a rebuilt corpus numbers its
    versions anew, so the ids it was drawn with (`old`, `new`) may name other texts; a pair
    one of whose texts is no version any more (read as junk since) is not counted
    ("unmatched"). Per split: of the edits read as replacements ("edit yes"), those the flat
    store finds ("edit yes found"); of the drawn suggestions it still makes ("suggested"),
    those read as replacements ("suggested yes")."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for line in AUDIT.open():
        v = json.loads(line)
        got = flat_found.get(v["repo"])
        if got is None:
            continue
        pair = (v["old"], v["new"])
        if ids is not None and "old_text" in v:
            known = ids.get(v["repo"], {})
            old, new = known.get((v["old_file"], v["old_text"])), known.get((v["new_file"], v["new_text"]))
            if old is None or new is None:
                out[splits[v["repo"]]]["unmatched"] += 1
                continue
            pair = (old, new)
        tally, found = out[splits[v["repo"]]], pair in got
        if v["drawn"] == "edit" and v["replaced"]:
            tally["edit yes"] += 1
            tally["edit yes found"] += found
        elif v["drawn"] == "suggested" and found:
            tally["suggested"] += 1
            tally["suggested yes"] += v["replaced"]
    return out


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
    ap.add_argument("--causes", action="store_true", help="why the dev edits were missed")
    ap.add_argument("--write-results", action="store_true")
    args = ap.parse_args()
    results = Results("bench_suggest_real.py")
    root = Path(args.corpus)
    if (root / "manifest.json").exists():
        flat_found: dict[str, set[tuple[str, str]]] = {}
        pooled = corpus_run(root, args.show_false, args.causes, flat_found)
        for (split, who, name), (tp, n_got, n_truth) in sorted(pooled.items()):
            label = "char-trigram baseline" if who == "baseline" else f"ours, store {who}"
            results.add(f"{split}, truth {name}: precision, {label}", tp / max(1, n_got), unit="")
            results.add(f"{split}, truth {name}: recall, {label}", tp / max(1, n_truth), unit=f"of {n_truth}")
        splits = {r["name"]: r.get("split", "dev") for r in json.loads((root / "manifest.json").read_text())}
        audit = audit_run(flat_found, splits, version_ids(root))
        for split, t in sorted(audit.items()):
            line = f"AUDIT {split:8}" + (
                f" ({t['unmatched']} verdicts name no version)" if t["unmatched"] else ""
            )
            if t["edit yes"]:
                recall = t["edit yes found"] / t["edit yes"]
                line += f" recall on edits read as replacements {recall:.3f} ({t['edit yes found']}/{t['edit yes']})"
                results.add(f"{split}, audited: recall, ours, store flat", recall, unit=f"of {t['edit yes']}")
            if t["suggested"]:
                precision = t["suggested yes"] / t["suggested"]
                line += f"  precision read by eye {precision:.3f} ({t['suggested yes']}/{t['suggested']})"
                results.add(
                    f"{split}, audited: precision, ours, store flat", precision, unit=f"of {t['suggested']}"
                )
            print(line)
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
