"""Build the bundled sample memory: two years of a developer agent's second brain.

`python sample_db/generate.py` rewrites `sample_db/facts.jsonl` (SPEC section 4 interchange,
no embeddings) and `sample_db/sample.synapse.toml` (which trusts the sample's signing key);
`--embed` then runs `embed.py` for the sentence-embedding side file.

Everything is drawn from one seeded `random.Random`, ed25519 signatures are deterministic and
every timestamp is placed relative to END, so the output is byte-identical on every run.
`world.py` simulates the notes and the facts they write; this module gives each fact a life
story (who corroborated, contradicted or re-read it, and when), a declared tier, provenance
and, for signed facts, a signature that is good, untrusted, forged or missing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import vocab as V  # noqa: E402
from world import END, Draft, World, day, ts  # noqa: E402

from synapse_tui.core.ingest import signing  # noqa: E402

SEED = 20261130
TRUSTED_KEY = signing.private_key_from_seed(hashlib.sha256(b"synapse-sample-trusted").digest())
UNKNOWN_KEY = signing.private_key_from_seed(hashlib.sha256(b"synapse-sample-unknown").digest())

NAMES = sorted(
    {*V.INTERNAL, *V.ORGS, *V.APIS, *V.PROJECTS, *(p for ps in V.ORGS.values() for p in ps)},
    key=len,
    reverse=True,
)
THINGS = {*V.APIS, *V.PROJECTS}

# declared tier weights (auto, human, signed) by the kind of note a fact came from
TIERS = {
    "standup": (80, 20, 0),
    "planning": (70, 28, 2),
    "design-review": (50, 42, 8),
    "client-call": (75, 25, 0),
    "vendor-thread": (70, 25, 5),
    "incident-review": (65, 33, 2),
    "release-notes": (25, 15, 60),
    "adr": (10, 55, 35),
    "one-on-one": (75, 25, 0),
    "wiki": (55, 45, 0),
}


def between(rng: random.Random, a: datetime, b: datetime) -> datetime:
    span = max(60, int((b - a).total_seconds()) // 60)
    return a + timedelta(minutes=rng.randint(1, span))


def recent_biased(rng: random.Random, a: datetime, b: datetime) -> datetime:
    """A moment in (a, b], more likely near b: things in use get re-read more."""
    span = max(60, int((b - a).total_seconds()) // 60)
    return b - timedelta(minutes=int(span * rng.random() ** 2.5))


def entities_of(rng: random.Random, text: str) -> list[str]:
    """The known names in the text, in reading order, spelt the way a busy agent spells them."""
    found: list[tuple[int, str]] = []
    rest = text
    for name in NAMES:  # longest first, so "Payments API" is not also read as something shorter
        i = rest.find(name)
        if i >= 0:
            found.append((i, name))
            rest = rest.replace(name, "\0" * len(name))
    out = []
    for _, name in sorted(found):
        x = rng.random()
        if name in THINGS and x < 0.08:
            name = name.lower()
        elif x < 0.015:
            name = name.lower() if name not in THINGS else name.upper()
        elif x < 0.02:
            name = f" {name} "
        out.append(name)
    return out


def add_markup(w: World) -> None:
    for text, ents in V.MARKUP_FACTS:
        key = ents[0]
        notes = [n for n in w.notes if key in (n.project, *n.apis, *n.people) and not n.wiki]
        n = w.rng.choice(notes)
        w.add(text, n.at + timedelta(minutes=w.rng.randint(5, 40)), n)


def assign_tiers(w: World) -> None:
    for d in w.drafts:
        d.tier = w.rng.choices(("auto", "human", "signed"), weights=TIERS[d.note.kind])[0]


def story(w: World, d: Draft) -> None:
    """Corroborations, contradictions and reinforcement times for one fact."""
    rng = w.rng
    t0 = d.created
    t1 = d.superseded_at or END
    open_days = (t1 - t0).days
    if d.superseded_at is not None:
        d.story = d.story or rng.choices(("untouched", "steady", "corroborated"), (3, 5, 2))[0]
    elif not d.story:
        weights = {"untouched": 36, "steady": 34, "corroborated": 13, "hot": 2, "disputed": 5}
        if d.tier != "auto":
            weights["hot"] = 5
        if open_days < 20:
            weights["hot"] = weights["disputed"] = 0
        d.story = rng.choices(list(weights), list(weights.values()))[0]
    if d.story in ("untouched", "duplicate"):
        d.r = 0 if rng.random() < 0.85 else 1
        if d.r:
            d.events = [between(rng, t0, min(t1, t0 + timedelta(days=30)))]
    elif d.story == "steady":
        d.r, d.s = rng.randint(1, 4), int(rng.random() < 0.2)
        horizon = t1 if rng.random() < 0.3 else min(t1, t0 + timedelta(days=rng.expovariate(1 / 90)))
        d.events = [between(rng, t0, horizon) for _ in range(d.r + rng.randint(0, 2))]
    elif d.story == "corroborated":
        d.r, d.s = rng.randint(5, 14), int(rng.random() < 0.3)
        d.events = [recent_biased(rng, t0, t1) for _ in range(d.r + rng.randint(0, 3))]
    elif d.story == "hot":
        d.r, d.s = rng.randint(8, 20), 0
        d.events = [recent_biased(rng, t0, END) for _ in range(d.r)]
        d.events += [between(rng, END - timedelta(days=30), END) for _ in range(rng.randint(6, 10))]
        d.events += [between(rng, END - timedelta(days=7), END) for _ in range(rng.randint(4, 6))]
    elif d.story == "disputed":
        d.r, d.s = rng.randint(0, 3), rng.randint(2, 5)
        d.events = [between(rng, t0, t1) for _ in range(d.r)]
    d.events = sorted(set(d.events))


def dispute(w: World, d: Draft) -> Draft:
    """A later note says the fact is wrong: the contradiction behind its s."""
    rng = w.rng
    lo, hi = d.created + timedelta(days=2), min(END, d.created + timedelta(days=150))
    later = [n for n in w.notes if n.project == d.note.project and lo < n.at < hi and not n.wiki]
    internal = [p for p in V.PROJECTS[d.note.project][0] if p not in d.text] or V.INTERNAL
    if later:
        n = rng.choice(later)
        t = n.at + timedelta(minutes=rng.randint(5, 50))
    else:
        t = between(rng, lo, min(END - timedelta(hours=3), lo + timedelta(days=20)))
        n = w.make_note(t, "correction", d.note.project)
    p = rng.choice(internal)
    text = rng.choice(
        [
            f"{p} disputes the earlier note that {d.text}",
            f"{p} says it is not true that {d.text}",
            f"according to {p}, the note from {day(d.created)} is wrong: {d.text}",
        ]
    )
    return w.add(text, t, n, story=rng.choice(["untouched", "steady"]))


def provenance(d: Draft, signer: str | None) -> dict:
    if d.note.wiki:
        return {"x-import": "legacy-wiki", "x-import-batch": "2026-02-14"}
    if signer:
        return {"x-signer": signer}
    era = 0 if d.created < END - timedelta(days=440) else 1 if d.created < END - timedelta(days=240) else 2
    out = {
        "x-ai-agent": V.AI_AGENTS[era],
        "x-ai-model": V.AI_MODELS[era],
        "x-ai-session": d.note.session,
    }
    if d.tier == "human":
        out["x-accepted-via"] = "triage"
    return out


def build(rng: random.Random) -> list[dict]:
    w = World(rng)
    w.run()
    add_markup(w)
    assign_tiers(w)
    for d in list(w.drafts):
        story(w, d)
        if d.story == "disputed":
            story(w, dispute(w, d))
    for d in w.drafts:
        if d.story == "duplicate":
            d.tier = "auto"
    heads = [d for d in w.drafts if d.superseded_at is None and d.events and d.story != "hot"]
    for d in rng.sample(heads, 4):  # a laptop whose clock ran a day ahead
        d.events.append(END + timedelta(hours=rng.randint(14, 40), minutes=rng.randrange(60)))

    order = sorted(range(len(w.drafts)), key=lambda i: (w.drafts[i].created, i))
    drafts = [w.drafts[i] for i in order]
    for i, d in enumerate(drafts, 1):
        d.id = f"f-{i:05d}"

    signed = [d for d in drafts if d.tier == "signed"]
    modes = {id(d): rng.choices(("trusted", "unknown", "forged"), (80, 11, 9))[0] for d in signed}
    for d in rng.sample(signed, 2):
        modes[id(d)] = "missing"
    humans = [d for d in drafts if d.tier == "human" and not d.note.wiki]
    for d in rng.sample(humans, 2):
        modes[id(d)] = "trusted"

    out = []
    for d in drafts:
        mode = modes.get(id(d))
        signer = {"trusted": "release-bot", "unknown": "contractor-laptop", "forged": "release-bot"}
        obj: dict = {
            "id": d.id,
            "text": d.text,
            "created_at": ts(d.created),
            "tier": d.tier,
            "corroborations": d.r,
            "contradictions": d.s,
            "entities": entities_of(rng, d.text),
            "note": d.note.id,
            "provenance": provenance(d, signer.get(mode) if d.tier == "signed" else None),
        }
        if d.note.wiki:
            obj["reinforcement_count"] = 1 + len(d.events)
        else:
            obj["reinforced_at"] = [ts(t) for t in d.events]
        if d.supersedes is not None:
            obj["supersedes"] = d.supersedes.id
        created = obj["created_at"]
        if mode == "trusted":
            obj["signature"] = signing.sign(TRUSTED_KEY, d.id, created, d.text)
        elif mode == "unknown":
            obj["signature"] = signing.sign(UNKNOWN_KEY, d.id, created, d.text)
        elif mode == "forged":
            obj["signature"] = signing.sign(TRUSTED_KEY, d.id, created, d.text + " (draft)")
        out.append(obj)
    return out


def write(out_dir: Path) -> Path:
    facts = build(random.Random(SEED))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "facts.jsonl"
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for obj in facts:
            fh.write(json.dumps(obj, sort_keys=True, ensure_ascii=False) + "\n")
    toml = (
        "# Config for the bundled sample memory (written by sample_db/generate.py).\n"
        "# The one key the sample trusts; facts signed by any other key are untrusted.\n"
        "[trust]\n"
        f'signers = ["{signing.public_key_hex(TRUSTED_KEY)}"]\n'
    )
    (out_dir / "sample.synapse.toml").write_text(toml, encoding="utf-8", newline="\n")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE, help="output folder (default: sample_db/)")
    ap.add_argument("--embed", action="store_true", help="also compute embeddings (needs torch)")
    args = ap.parse_args(argv)
    path = write(args.out)
    print(f"wrote {path} ({sum(1 for _ in path.open(encoding='utf-8'))} facts)")
    if args.embed:
        return subprocess.call([sys.executable, str(HERE / "embed.py"), str(path)])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
