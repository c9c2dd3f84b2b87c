"""How long `synapse-tui embed` takes, against the built-in lexical embedder as baseline.

    python benchmarks/bench_embed.py [N]      (needs the [embed] extra)

N facts of the bundled sample (default 1,000) are imported without their embeddings (so
the import gives them lexical ones, timed: the baseline), then `embed_store` computes
all-MiniLM-L6-v2 embeddings and rebuilds the graph (timed, model load included). The
ratio says what real embeddings cost over the built-in ones.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.graph import embed as embedder  # noqa: E402
from synapse_tui.core.graph import lexical
from synapse_tui.core.ingest.interchange import import_facts, parse_file  # noqa: E402
from synapse_tui.core.ingest.sample import bundled  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402


def main(n: int) -> None:
    missing = embedder.missing_extra()
    if missing:
        raise SystemExit(f"needs the [embed] extra ({missing} missing): {embedder.INSTALL}")
    facts = parse_file(bundled() / "facts.jsonl")[:n]
    for f in facts:
        f.embedding = None
    texts = [f.text for f in facts]
    t0 = time.perf_counter()
    lexical.embed_texts(texts)
    lexical_s = time.perf_counter() - t0
    with Store.open(Path(tempfile.mkdtemp()) / "m.db", create=True) as store:
        import_facts(store, facts, "sample")
        t0 = time.perf_counter()
        result = embedder.embed_store(store, Config())
        embed_s = time.perf_counter() - t0
    print(
        f"embed: {result.embedded} facts with {embedder.MODEL} in {embed_s:.1f} s"
        f" ({result.embedded / embed_s:.0f} facts/s, model load and graph rebuild included);"
        f" lexical baseline {lexical_s:.2f} s; ratio {embed_s / lexical_s:.0f}x"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
