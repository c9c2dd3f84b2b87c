"""The whole pipeline against a plain, per-fact reading of SPEC section 2.

The bundled sample goes through import, the store and the vectorised arithmetic; a
straightforward reference implementation reads the same JSON Lines with `datetime` and
`math` and must agree on every fact, field by field, to 1e-9.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime

import pytest

from synapse_tui.core.base.config import load_config
from synapse_tui.core.ingest import signing
from synapse_tui.core.ingest.interchange import import_facts, parse_file
from synapse_tui.core.ingest.sample import bundled
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.store.db import Store

NOW = "2026-12-01T00:00:00Z"


def ts(text: str) -> float:
    dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp()


def reference(facts: list[dict], signers: set[str], now: float) -> dict[str, dict]:
    by_id = {f["id"]: f for f in facts}
    supersessors: dict[str, list[str]] = {}
    for f in facts:
        if f.get("supersedes") in by_id:
            supersessors.setdefault(f["supersedes"], []).append(f["id"])

    def depth(fid: str) -> int:
        return 0 if fid not in supersessors else 1 + min(depth(s) for s in supersessors[fid])

    out = {}
    for f in facts:
        age = lambda t: max((now - ts(t)) / 86400, 1 / 1440)  # noqa: E731
        sig = f.get("signature")
        valid = sig is not None and signing.verify(sig, f["id"], f["created_at"], f["text"]) == 1
        trusted = valid and sig["key"].lower() in signers
        declared = f.get("tier", "auto")
        tier = "signed" if trusted else ("human" if declared == "human" else "auto")
        flags = []
        events = [f["created_at"], *f.get("reinforced_at", [])]
        if any(ts(t) > now for t in events):
            flags.append("clock_skew")
        if (declared == "signed" or sig is not None) and not trusted:
            flags.append("signature_untrusted" if valid else "signature_invalid")
        r, s, W = f.get("corroborations", 0), f.get("contradictions", 0), 2.0
        a = {"auto": 0.60, "human": 0.85, "signed": 0.95}[tier]
        confidence = (r + a * W) / (r + s + W)
        if "reinforcement_count" in f and "reinforced_at" not in f:
            B = math.log(f["reinforcement_count"] / 0.5) - 0.5 * math.log(age(f["created_at"]))
        else:
            B = math.log(sum(age(t) ** -0.5 for t in events))
        freshness = 1 / (1 + math.exp(-(B + 1.7)))
        k = depth(f["id"])
        gate = {"auto": 0.8, "human": 0.9, "signed": 1.0}[tier]
        trust = confidence * freshness * 0.5**k * gate
        b, d, u = r / (r + s + W), s / (r + s + W), W / (r + s + W)
        guidance = "disputed" if d >= 0.25 else "uncertain" if u >= 0.5 else "supported"
        band = ["very low", "low", "moderate", "high", "very high"][min(4, int(trust / 0.2 + 1e-12))]
        out[f["id"]] = dict(
            trust=trust,
            confidence=confidence,
            freshness=freshness,
            supersession=0.5**k,
            gate=gate,
            b=b,
            d=d,
            u=u,
            B=B,
            k=k,
            tier=tier,
            flags=flags,
            guidance=guidance,
            band=band,
        )
    return out


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    src = bundled() / "facts.jsonl"
    facts = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines() if line.strip()]
    config = load_config(bundled() / "sample.synapse.toml")
    db = tmp_path_factory.mktemp("ref") / "sample.db"
    with Store.open(db, create=True) as store:
        import_facts(store, parse_file(src), str(src))
        rows = {row["id"]: row for row in Memory(store, config, ts(NOW)).rows()}
    return rows, reference(facts, set(config.trust.signers), ts(NOW))


def test_every_fact_agrees_with_the_reference(scored):
    ours, ref = scored
    assert ours.keys() == ref.keys() and len(ours) > 2000
    for fid, expected in ref.items():
        got = ours[fid]
        for key, value in expected.items():
            if isinstance(value, float):
                assert got[key] == pytest.approx(value, abs=1e-9, rel=1e-9), (fid, key)
            else:
                assert got[key] == value, (fid, key)


def test_the_sample_exercises_every_verdict(scored):
    ours, _ = scored
    seen = {(key, row[key]) for row in ours.values() for key in ("band", "guidance", "tier")}
    seen |= {("flag", flag) for row in ours.values() for flag in row["flags"]}
    for band in ("very low", "low", "moderate", "high", "very high"):
        assert ("band", band) in seen
    for value in ("disputed", "uncertain", "supported"):
        assert ("guidance", value) in seen
    for value in ("auto", "human", "signed"):
        assert ("tier", value) in seen
    for flag in ("clock_skew", "signature_invalid", "signature_untrusted"):
        assert ("flag", flag) in seen
