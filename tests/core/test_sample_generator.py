"""The bundled sample memory: reproducible, valid interchange, and every factor exercised.

The scoring here is a deliberately separate, small numpy reading of SPEC section 2, so the
sample is checked against the contract rather than against the code it is meant to test.
"""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
import tomllib
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from synapse_tui.core.ingest import signing

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_db"
FACTS = SAMPLE / "facts.jsonl"
END = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
BANDS = ["very low", "low", "moderate", "high", "very high"]
BASE_RATE = {"auto": 0.60, "human": 0.85, "signed": 0.95}
GATE = {"auto": 0.8, "human": 0.9, "signed": 1.0}
REQUIRED = {"id": str, "text": str, "created_at": str}
OPTIONAL = {
    "tier": str,
    "corroborations": int,
    "contradictions": int,
    "reinforced_at": list,
    "reinforcement_count": int,
    "supersedes": str,
    "entities": list,
    "note": str,
    "provenance": dict,
    "signature": dict,
}


def parse(ts: str) -> datetime:
    t = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def load(path: Path = FACTS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def trusted_keys() -> set[str]:
    return set(tomllib.loads((SAMPLE / "sample.synapse.toml").read_text())["trust"]["signers"])


def depths(facts: list[dict]) -> np.ndarray:
    """k per fact: 0 for heads, else 1 + the smallest k among the facts that supersede it."""
    index = {f["id"]: i for i, f in enumerate(facts)}
    by: dict[int, list[int]] = {}
    for i, f in enumerate(facts):
        if f.get("supersedes") in index:
            by.setdefault(index[f["supersedes"]], []).append(i)
    k = np.full(len(facts), -1)
    frontier = [i for i in range(len(facts)) if i not in by]
    k[frontier] = 0
    level = 0
    while frontier:  # breadth-first from the heads down the supersedes links gives the min
        level += 1
        nxt = []
        for i in frontier:
            old = facts[i].get("supersedes")
            if old in index and k[index[old]] < 0:
                k[index[old]] = level
                nxt.append(index[old])
        frontier = nxt
    return k


def score(facts: list[dict], now: datetime = END) -> dict[str, np.ndarray]:
    trusted = trusted_keys()
    n = len(facts)
    r = np.array([f.get("corroborations", 0) for f in facts], dtype=float)
    s = np.array([f.get("contradictions", 0) for f in facts], dtype=float)
    tiers, flags = [], [set() for _ in facts]
    for f, fl in zip(facts, flags, strict=True):
        declared = f.get("tier", "auto")
        state = signing.verify(f.get("signature"), f["id"], f["created_at"], f["text"])
        good = state == signing.SigState.VALID
        if good and f["signature"]["key"] in trusted:
            tiers.append("signed")
            continue
        if declared == "signed" or "signature" in f:
            fl.add("signature_untrusted" if good else "signature_invalid")
        tiers.append("human" if declared == "human" else "auto")
    a = np.array([BASE_RATE[t] for t in tiers])
    gate = np.array([GATE[t] for t in tiers])
    w = 2.0
    conf = (r + a * w) / (r + s + w)
    b, d, u = r / (r + s + w), s / (r + s + w), w / (r + s + w)
    guidance = np.where(d >= 0.25, "disputed", np.where(u >= 0.5, "uncertain", "supported"))

    floor = 1 / 1440
    big_b = np.empty(n)
    for i, f in enumerate(facts):
        created = parse(f["created_at"])
        if "reinforcement_count" in f and "reinforced_at" not in f:
            age = max((now - created).total_seconds() / 86400, floor)
            big_b[i] = math.log(f["reinforcement_count"] / 0.5) - 0.5 * math.log(age)
            events = [created]
        else:
            events = [created] + [parse(x) for x in f.get("reinforced_at", [])]
            ages = np.maximum([(now - t).total_seconds() / 86400 for t in events], floor)
            big_b[i] = math.log(np.sum(ages**-0.5))
        if any(t > now for t in events):
            flags[i].add("clock_skew")
    fresh = 1 / (1 + np.exp(-(big_b + 1.7)))
    k = depths(facts)
    trust = conf * fresh * 0.5**k * gate
    band = np.array(BANDS)[np.minimum((trust / 0.2).astype(int), 4)]
    return {
        "trust": trust,
        "band": band,
        "guidance": guidance,
        "tier": np.array(tiers),
        "flags": flags,
        "k": k,
        "freshness": fresh,
        "B": big_b,
        "b": b,
        "d": d,
    }


@pytest.fixture(scope="module")
def facts() -> list[dict]:
    return load()


@pytest.fixture(scope="module")
def scored(facts: list[dict]) -> dict:
    return score(facts)


def test_regenerating_is_byte_identical(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(SAMPLE / "generate.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    assert (tmp_path / "facts.jsonl").read_bytes() == FACTS.read_bytes()
    toml = SAMPLE / "sample.synapse.toml"
    assert (tmp_path / "sample.synapse.toml").read_bytes() == toml.read_bytes()


def test_every_line_is_valid_interchange(facts: list[dict]) -> None:
    raw = FACTS.read_bytes()
    assert raw.endswith(b"\n") and b"\r" not in raw
    assert 2500 <= len(facts) <= 4000
    for f, line in zip(facts, raw.decode("utf-8").splitlines(), strict=True):
        assert line == json.dumps(f, sort_keys=True, ensure_ascii=False)
        for key, typ in REQUIRED.items():
            assert isinstance(f[key], typ) and f[key], (f["id"], key)
        assert set(f) <= set(REQUIRED) | set(OPTIONAL), f["id"]
        assert "embedding" not in f
        for key, typ in OPTIONAL.items():
            if key in f:
                assert isinstance(f[key], typ) and not isinstance(f[key], bool), (f["id"], key)
        parse(f["created_at"])
        assert f.get("tier", "auto") in BASE_RATE
        assert f.get("corroborations", 0) >= 0 and f.get("contradictions", 0) >= 0
        assert all(isinstance(parse(t), datetime) for t in f.get("reinforced_at", []))
        assert f.get("reinforcement_count", 1) >= 1
        assert all(isinstance(e, str) and e.strip() for e in f.get("entities", []))
        if "signature" in f:
            assert set(f["signature"]) == {"alg", "key", "sig"}
    ids = [f["id"] for f in facts]
    assert len(set(ids)) == len(ids) and ids == sorted(ids)


def test_supersedes_point_back_at_existing_ids_without_cycles(facts: list[dict]) -> None:
    index = {f["id"]: f for f in facts}
    for f in facts:
        seen = {f["id"]}
        cur = f
        while "supersedes" in cur:
            assert cur["supersedes"] in index, cur["id"]
            cur = index[cur["supersedes"]]
            assert cur["id"] not in seen, f"cycle through {f['id']}"
            seen.add(cur["id"])
            assert parse(cur["created_at"]) <= parse(f["created_at"])


def test_every_band_guidance_tier_and_flag_occurs_at_end(scored: dict) -> None:
    assert set(scored["band"]) == set(BANDS)
    assert set(scored["guidance"]) == {"disputed", "uncertain", "supported"}
    assert set(scored["tier"]) == {"auto", "human", "signed"}
    flags = Counter(x for fl in scored["flags"] for x in fl)
    assert {"clock_skew", "signature_invalid", "signature_untrusted"} <= set(flags)
    assert np.all((scored["trust"] >= 0) & (scored["trust"] <= 1))


def test_the_sample_has_the_shapes_the_tour_needs(facts: list[dict], scored: dict) -> None:
    k = scored["k"]
    assert (k == 1).sum() >= 50 and (k == 2).sum() >= 10 and (k >= 3).sum() >= 2
    o1 = sum("reinforcement_count" in f and "reinforced_at" not in f for f in facts)
    assert 0.05 * len(facts) <= o1 <= 0.10 * len(facts)
    heads = k == 0
    last = np.array([max(parse(t) for t in [f["created_at"], *f.get("reinforced_at", [])]) for f in facts])
    untouched_days = np.array([(END - t).days for t in last])
    assert (heads & (untouched_days >= 365)).sum() >= 50  # stale
    assert (untouched_days <= 7).sum() >= 30  # recently verified
    r = np.array([f.get("corroborations", 0) for f in facts])
    assert ((r >= 5) & (r <= 20)).sum() >= 100
    assert sum("x-ai-agent" in f.get("provenance", {}) for f in facts) >= len(facts) // 2
    texts = Counter(f["text"] for f in facts)
    assert any(c >= 2 for c in texts.values())  # an agent that wrote the same thing twice
    assert any("[red]" in t or "[link=" in t for t in texts)


def test_entities_co_occur_across_notes(facts: list[dict]) -> None:
    units: dict[str, set[str]] = {}
    for f in facts:
        units.setdefault(f.get("note", f["id"]), set()).update(
            e.strip().lower() for e in f.get("entities", [])
        )
    pairs = Counter((x, y) for ents in units.values() for x in ents for y in ents if x < y)
    assert sum(c >= 2 for c in pairs.values()) >= 50
    spellings = Counter(e for f in facts for e in f.get("entities", []))
    assert "Payments API" in spellings and "payments api" in spellings


def test_embeddings_match_the_facts(facts: list[dict]) -> None:
    npy = SAMPLE / "embeddings.f16.npy"
    if not npy.exists():
        pytest.skip("embeddings not computed (python sample_db/embed.py)")
    emb = np.load(npy)
    assert emb.dtype == np.float16 and emb.shape == (len(facts), 384)
    norms = np.linalg.norm(emb.astype(np.float32), axis=1)
    assert np.allclose(norms, 1.0, atol=2e-3)
    digest = hashlib.sha256(FACTS.read_bytes()).hexdigest()
    assert (SAMPLE / "embeddings.sha256").read_text().split()[0] == digest


def test_notable_ids_are_what_the_readme_says(facts: list[dict], scored: dict) -> None:
    """The README table is cited by the main README's tour: it must match the data."""
    index = {f["id"]: i for i, f in enumerate(facts)}
    rows = {}
    for line in (SAMPLE / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if line.startswith("| ") and len(cells) == 4 and cells[1].startswith("f-"):
            rows[cells[0]] = [index[x.strip()] for x in cells[1].replace(",", "→").split("→")]
    flags, k, band = scored["flags"], scored["k"], scored["band"]
    (i,) = rows["stale"]
    assert k[i] == 0 and scored["freshness"][i] < 0.25 and band[i] == "very low"
    (i,) = rows["disputed"]
    assert scored["guidance"][i] == "disputed" and k[i] == 0
    (i,) = rows["forged signature"]
    assert "signature" in facts[i] and "signature_invalid" in flags[i]
    (i,) = rows["missing signature"]
    assert "signature" not in facts[i] and "signature_invalid" in flags[i]
    (i,) = rows["untrusted signature"]
    assert "signature_untrusted" in flags[i]
    (i,) = rows["human, trusted signature"]
    assert facts[i]["tier"] == "human" and scored["tier"][i] == "signed"
    assert list(k[rows["depth-2 chain"]]) == [2, 1, 0]
    assert list(k[rows["depth-3 chain"]]) == [3, 2, 1, 0]
    (i,) = rows["very high"]
    assert band[i] == "very high"
    (i,) = rows["uncertain"]
    assert scored["guidance"][i] == "uncertain" and facts[i]["corroborations"] == 0
    (i,) = rows["clock skew"]
    assert "clock_skew" in flags[i]
    (i,) = rows["O(1) freshness"]
    assert "reinforcement_count" in facts[i] and "reinforced_at" not in facts[i]
    (i,) = rows["markup in text"]
    assert "[red]" in facts[i]["text"]
    (i,) = rows["escape in text"]
    assert "\x1b[" in facts[i]["text"]
    a, b = rows["near-duplicate"]
    assert facts[a]["text"] == facts[b]["text"] and facts[a]["id"] != facts[b]["id"]
    (i,) = rows["entity spelling"]
    assert "payments api" in facts[i]["entities"]
