// Open a memory that mem0's TypeScript SDK itself wrote (the companion of real_mem0.py).
//
// Not a test: run by hand, with the SDK installed outside the repository (better-sqlite3
// 12.x builds against Node 20 from the system's headers):
//
//   mkdir /work/node-mem0 && cd /work/node-mem0 && npm init -y
//   npm install mem0ai@3.3.1 better-sqlite3@12.11.1
//   NODE_PATH=/work/node-mem0/node_modules node benchmarks/real_mem0_ts.js [SYNAPSE_TUI]
//
// The SDK writes with `infer: false` (no LLM is called; the config names one because the
// SDK insists) into its SQLite history (`memory_history`) and its SQLite vector store
// (`vector_store.db`), embedding with a deterministic 16-dimension embedder passed through
// its langchain provider (no model or network here), then updates one memory and deletes
// another. synapse-tui then reads those two files and the script checks the chain, the
// deletion, the note and that each current text carries the embedding the SDK stored.

process.env.MEM0_TELEMETRY = "false"; // before the SDK loads: it reads this at import

const { execFileSync } = require("child_process");
const crypto = require("crypto");
const fs = require("fs");
const os = require("os");
const path = require("path");

const { Memory } = require("mem0ai/oss");

const DIM = 16;
function embed(text) {
  const digest = crypto.createHash("sha256").update(text).digest();
  return Array.from({ length: DIM }, (_, i) => digest[i] / 255 - 0.5);
}
const embeddings = {
  embedQuery: async (text) => embed(text),
  embedDocuments: async (texts) => texts.map(embed),
};

async function main() {
  const synapse = process.argv[2] || path.join(__dirname, "..", ".venv", "bin", "synapse-tui");
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "real-mem0-ts-"));
  const history = path.join(work, "memory.db");
  const vectors = path.join(work, "vector_store.db");
  const memory = new Memory({
    embedder: { provider: "langchain", config: { model: embeddings } },
    vectorStore: { provider: "memory", config: { collectionName: "memories", dimension: DIM, dbPath: vectors } },
    llm: { provider: "openai", config: { apiKey: "unused", model: "gpt-5-mini" } },
    historyDbPath: history,
  });
  const ids = [];
  for (const text of ["Alice prefers tea", "Alice's dog is called Rex", "Alice lives in Paris"]) {
    const out = await memory.add([{ role: "user", content: text }], {
      userId: "alice",
      runId: "onboarding",
      metadata: { topic: "profile" },
      infer: false,
    });
    ids.push(out.results[0].id);
  }
  await memory.update(ids[0], "Alice prefers coffee");
  await memory.delete(ids[2]);
  console.log(`mem0 (TypeScript) wrote ${history} and ${vectors}`);

  const db = path.join(work, "synapse.db");
  const args = ["import", "--from", "mem0", history, "--vectors", vectors, "--db", db, "--json"];
  const result = JSON.parse(execFileSync(synapse, args, { encoding: "utf8" }));
  console.log("$ synapse-tui", args.join(" "), "->", JSON.stringify(result));
  const facts = Object.fromEntries(
    execFileSync(synapse, ["export", db], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .map((f) => [f.id, f]),
  );
  const flags = Object.fromEntries(
    execFileSync(synapse, ["score", db, "--json"], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .map((r) => [r.id, r.flags]),
  );
  const cos = (a, b) => {
    const dot = a.reduce((s, x, i) => s + x * b[i], 0);
    return dot / Math.hypot(...a) / Math.hypot(...b);
  };
  const coffee = facts[`mem0:${ids[0]}@2`] || {};
  console.log("provenance of the updated memory:", JSON.stringify(coffee.provenance));
  const checks = {
    "four facts (3 memories, one with two versions)": Object.keys(facts).length === 4,
    "the update is version 2 and supersedes version 1": coffee.supersedes === `mem0:${ids[0]}`,
    "the deleted memory's head carries the flag deleted": JSON.stringify(flags[`mem0:${ids[2]}`]) === '["deleted"]',
    "run_id is the note": coffee.note === "onboarding",
    "user id and metadata kept, no SDK internals":
      coffee.provenance["x-mem0-user-id"] === "alice" &&
      JSON.stringify(coffee.provenance["x-mem0-metadata"]) === '{"topic":"profile"}',
    "the current text's embedding is the one the SDK stored": cos(coffee.embedding || [0], embed(coffee.text)) > 0.9999,
    "the old version has none": !("embedding" in facts[`mem0:${ids[0]}`]),
    "nothing left out": result.left_out.length === 0,
  };
  const again = JSON.parse(execFileSync(synapse, args, { encoding: "utf8" }));
  checks["a second sync adds nothing"] = again.added === 0 && again.newly_deleted === 0;
  let ok = true;
  for (const [name, pass] of Object.entries(checks)) {
    console.log((pass ? "ok   " : "FAIL ") + name);
    ok = ok && pass;
  }
  fs.rmSync(work, { recursive: true, force: true });
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
