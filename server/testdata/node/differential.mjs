// A differential test of the drop-in: one random sequence of memory-tool
// calls, made from a seed, sent alike to the original knowledge-graph
// memory server and to goldfish (gqlsh mcp), through the official
// TypeScript client. Prints one JSON object: every call with both
// answers (isError, text, structured content, or what the client threw),
// the original's read_graph at the end, and goldfish's memory at the end
// (gqlsh export-memory, the original's JSONL format, and its read_graph).
// The Go test that runs it (TestMemoryDifferential) compares them.
//
//   node differential.mjs GQLSH_BINARY WORK_DIR SEED [CALLS]
//
// The sequence depends on the seed alone, never on an answer: names with
// spaces, accents, "İstanbul", emoji and CJK, quotes and backslashes;
// names repeated within a call and across calls; relations to entities
// that are not there; empty arrays and empty strings; a 32 KB
// observation and a create_entities of 70 entities; deletes of what is
// not there; add_observations to missing entities; searches by
// substring, in other cases and of whitespace alone; open_nodes of
// missing names; and read_graph now and then.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdirSync } from "node:fs";
import path from "node:path";

const [gqlsh, work, seedArg, callsArg] = process.argv.slice(2);
const seed = Number(seedArg ?? 1);
const calls = Number(callsArg ?? 320);
const require = createRequire(import.meta.url);
const original = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");
const dir = path.join(work, `seed${seed}`);
mkdirSync(dir, { recursive: true });
const cabinet = path.join(dir, "x.gf");

function target(name) {
  if (name === "goldfish") {
    return { command: gqlsh, args: ["mcp", "--cabinet", cabinet], env: { ...process.env } };
  }
  return { command: process.execPath, args: [original], env: { ...process.env, MEMORY_FILE_PATH: path.join(dir, "x.jsonl") } };
}

async function connect(name) {
  const client = new Client({ name: "differential", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ ...target(name), stderr: "ignore" }));
  return client;
}

const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

// mulberry32: a small PRNG, the same sequence for a seed everywhere.
function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(seed);
const int = (n) => Math.floor(rand() * n);
const pick = (list) => list[int(list.length)];
const chance = (p) => rand() < p;

// The names: plain, with spaces, accents, Turkish dotted I, emoji, CJK,
// quotes, backslashes, a backquote, reserved words, and one empty.
const baseNames = [
  "alice", "Bob Smith", "José Álvarez", "İstanbul", "istanbul", "ISTANBUL", "🐟 goldfish", "東京", "北京大学",
  'say "hi"', "back\\slash", "C:\\temp\\notes", "it's", "tick`name", "  padded  ", "MATCH", "naïve café",
  "Zoë", "straße", "STRASSE", "emoji 🎉🎉", "한국어 이름", "tab\tname", "line\nbreak", "",
];
const types = ["person", "City", "project", "thing with space", "Ünïcode", "type`tick", "MATCH", "note", "场所"];
const relTypes = ["knows", "works_on", "lives in", "ist in", "likes 💙", "RETURN", "depends-on", "reports_to"];
const things = ["café ☕", 'the "quoted" word', "path C:\\temp\\x", "日本語のメモ", "İstanbul trip", "emoji 🎉🐟",
  "tab\there", "multi\nline", "a \\\\ double backslash", "Zoë's birthday", "the release checklist", "straße"];
const verbs = ["likes", "visited", "asked about", "wrote", "prefers", "dislikes"];

let fresh = 0;
const known = []; // names the sequence has created so far (whatever either server made of them)
const obsOf = new Map(); // name -> observations the sequence gave it
function newName() {
  if (chance(0.35)) return pick(baseNames);
  fresh++;
  return pick([`n${fresh}`, `Entity ${fresh}`, `Ünï ${fresh}`, `名前${fresh}`, `e"${fresh}"`, `x\\${fresh}`]);
}
function someName() {
  if (known.length > 0 && chance(0.75)) return pick(known);
  return chance(0.5) ? pick(baseNames) : `missing ${int(1000)}`;
}
function observation() {
  const r = rand();
  if (r < 0.04) return "";
  if (r < 0.07) return "   ";
  return `${pick(verbs)} ${pick(things)} ${int(50)}`;
}
function observations(n) {
  const out = Array.from({ length: n }, observation);
  if (n > 0 && chance(0.1)) out.push(out[0]); // the same observation twice in one list
  return out;
}
function entity(name) {
  const obs = observations(int(4));
  return { name, entityType: chance(0.01) ? "" : pick(types), observations: obs };
}
function remember(e) {
  if (!obsOf.has(e.name)) {
    known.push(e.name);
    obsOf.set(e.name, []);
  }
  obsOf.get(e.name).push(...e.observations);
}
function relation() {
  return { from: someName(), to: someName(), relationType: chance(0.01) ? "" : pick(relTypes) };
}
function caseVariant(s) {
  return pick([s, s.toUpperCase(), s.toLowerCase(), s.toLocaleUpperCase("tr"), s.toLocaleLowerCase("tr")]);
}
function substring(s) {
  const cps = Array.from(s);
  if (cps.length <= 2) return s;
  const a = int(cps.length - 1);
  return cps.slice(a, a + 2 + int(4)).join("");
}

// The specials: each once, at a place of the seed's choosing.
const specials = [
  () => ["create_entities", { entities: [{ name: "big", entityType: "note", observations: ["0123456789abcdef".repeat(2048)] }] }],
  () => ["create_entities", {
    entities: Array.from({ length: 70 }, (_, i) => ({ name: `bulk ${i}`, entityType: pick(types), observations: [`row ${i}`] })),
  }],
  () => ["create_entities", { entities: [] }],
  () => ["create_relations", { relations: [] }],
  () => ["add_observations", { observations: [] }],
  () => ["delete_entities", { entityNames: [] }],
  () => ["delete_observations", { deletions: [] }],
  () => ["delete_relations", { relations: [] }],
  () => ["open_nodes", { names: [] }],
  () => ["search_nodes", { query: "   " }],
  () => ["search_nodes", { query: "" }],
  () => ["search_nodes", { query: "\t" }],
  () => ["delete_entities", { entityNames: ["never was", "nor this"] }],
  () => ["delete_relations", { relations: [{ from: "never was", to: "nor this", relationType: "knows" }] }],
  () => ["delete_observations", { deletions: [{ entityName: "never was", observations: ["x"] }] }],
  () => ["add_observations", { observations: [{ entityName: "never was", contents: ["x"] }] }],
  () => ["create_relations", { relations: [{ from: "nobody here", to: "nor here", relationType: "knows" }] }],
  () => ["create_entities", { entities: [{ name: "twin", entityType: "person", observations: ["one"] },
    { name: "twin", entityType: "person", observations: ["two"] }] }],
  () => ["create_entities", { entities: [{ name: "", entityType: "person", observations: [""] }] }],
  () => ["create_entities", { entities: [{ name: "typeless", entityType: "", observations: [] }] }],
  () => ["create_relations", { relations: [{ from: "alice", to: "Bob Smith", relationType: "" }] }],
  () => ["open_nodes", { names: ["İstanbul", "istanbul", "nobody", "nobody"] }],
  () => ["search_nodes", { query: "İSTANBUL" }],
  () => ["search_nodes", { query: "istanbul" }],
  () => ["search_nodes", { query: "0123456789abcdef0123" }],
  () => ["open_nodes", { names: ["big"] }],
  () => ["read_graph", {}],
];

function randomCall() {
  const r = rand();
  if (r < 0.22) {
    const n = 1 + int(5);
    const list = [];
    for (let i = 0; i < n; i++) {
      if (list.length > 0 && chance(0.08)) list.push(entity(list[0].name)); // a name twice in one call
      else list.push(entity(chance(0.15) ? someName() : newName()));
    }
    return ["create_entities", { entities: list }];
  }
  if (r < 0.36) {
    const list = Array.from({ length: 1 + int(4) }, relation);
    if (chance(0.1)) list.push({ ...list[0] });
    return ["create_relations", { relations: list }];
  }
  if (r < 0.47) {
    const list = Array.from({ length: 1 + int(2) }, () => {
      const name = someName();
      const old = obsOf.get(name) ?? [];
      const contents = observations(int(3));
      if (old.length > 0 && chance(0.3)) contents.push(pick(old)); // one it has already
      return { entityName: name, contents };
    });
    return ["add_observations", { observations: list }];
  }
  if (r < 0.52) {
    const list = Array.from({ length: 1 + int(2) }, () => {
      const name = someName();
      const old = obsOf.get(name) ?? [];
      const obs = old.length > 0 && chance(0.7) ? [pick(old)] : [observation()];
      return { entityName: name, observations: obs };
    });
    return ["delete_observations", { deletions: list }];
  }
  if (r < 0.56) return ["delete_entities", { entityNames: Array.from({ length: 1 + int(2) }, someName) }];
  if (r < 0.6) return ["delete_relations", { relations: Array.from({ length: 1 + int(2), }, relation) }];
  if (r < 0.78) {
    const k = rand();
    let query;
    if (k < 0.35) query = caseVariant(substring(someName()));
    else if (k < 0.6) {
      const name = someName();
      const old = obsOf.get(name) ?? [];
      query = caseVariant(substring(old.length > 0 ? pick(old) : observation()));
    } else if (k < 0.7) query = caseVariant(pick(types));
    else if (k < 0.8) query = pick(["  ", " ", "\n", "\t "]);
    else if (k < 0.9) query = `zz${int(100)}qx`;
    else query = pick(["İ", "i", "ß", "🎉", "\"", "\\", "'", "京"]);
    return ["search_nodes", { query }];
  }
  if (r < 0.94) {
    const names = Array.from({ length: 1 + int(4) }, someName);
    if (chance(0.1)) names.push(names[0]);
    return ["open_nodes", { names }];
  }
  return ["read_graph", {}];
}

// The sequence: the random calls with the specials among them.
const sequence = Array.from({ length: calls }, () => null);
const at = new Set();
for (const s of specials) {
  let i;
  do i = int(calls); while (at.has(i));
  at.add(i);
  sequence[i] = s;
}
const made = [];
for (let i = 0; i < calls; i++) {
  const [tool, args] = (sequence[i] ?? randomCall)();
  if (tool === "create_entities") args.entities.forEach(remember);
  made.push({ tool, args });
}

async function run(name) {
  const c = await connect(name);
  const answers = [];
  for (const { tool, args } of made) {
    try {
      const res = await c.callTool({ name: tool, arguments: args });
      answers.push({ isError: !!res.isError, text: text(res), structured: res.structuredContent ?? null });
    } catch (e) {
      // The client refuses an answer that breaks the output schema, or
      // the call timed out: an error the server did not report itself.
      answers.push({ isError: true, threw: String(e?.message ?? e), text: "", structured: null });
    }
  }
  let graph;
  try {
    const res = await c.callTool({ name: "read_graph", arguments: {} });
    graph = { isError: !!res.isError, text: text(res), structured: res.structuredContent ?? null };
  } catch (e) {
    graph = { isError: true, threw: String(e?.message ?? e), text: "", structured: null };
  }
  await c.close();
  return { answers, graph };
}

const [o, g] = await Promise.all([run("original"), run("goldfish")]);
// goldfish's memory as the original's file, once its server is gone.
let exported = null, exportError = null;
try {
  exported = execFileSync(gqlsh, ["export-memory", "--cabinet", cabinet, "--session", "memory"],
    { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });
} catch (e) {
  exportError = String(e?.stderr ?? e?.message ?? e);
}
// JavaScript's toLowerCase of every code point it changes, for the Go test
// to tell where it and Go's unicode.ToLower part (the README's case
// folding: "İ" is "i̇" here, "i" there).
const jsLower = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const ch = String.fromCodePoint(cp);
  const lower = ch.toLowerCase();
  if (lower !== ch) jsLower.push({ cp, lower });
}
process.stdout.write(JSON.stringify({
  seed,
  jsLower,
  calls: made.map((m, i) => ({ ...m, original: o.answers[i], goldfish: g.answers[i] })),
  original: { graph: o.graph },
  goldfish: { graph: g.graph, exported, exportError },
}));
