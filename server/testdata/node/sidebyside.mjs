// The same MCP client workload against goldfish (gqlsh mcp) and against
// the original knowledge-graph memory server, through the official
// TypeScript client, on two memories (2,000 entities, and a small one of
// 30). Prints one JSON object: the tools' input and output schemas, the
// text and structured content of every read from both, and how many of 40 concurrent writes
// each kept. The Go test that runs it counts the tokens and checks the
// answers and the schemas. Goldfish's schemas are the original's with
// every object closed (additionalProperties: false, for strict function
// calling): the script fails unless every one of them is strict (one
// JSON type per property, every object closed, every property required),
// and prints them with additionalProperties: false taken out, for the Go
// test to compare with the original's. It also fails unless the memory
// tools carry the original's annotations.
//
//   node sidebyside.mjs GQLSH_BINARY WORK_DIR [--load]
//
// With --load it then drives search_nodes and create_entities on both
// with 1, 8 and 64 calls in flight, a fixed 400 calls each.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createRequire } from "node:module";
import path from "node:path";

const [gqlsh, work] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const original = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");

function target(name, run) {
  if (name === "goldfish") {
    return { command: gqlsh, args: ["mcp", "--cabinet", path.join(work, `${run}.gf`)], env: { ...process.env } };
  }
  return { command: process.execPath, args: [original], env: { ...process.env, MEMORY_FILE_PATH: path.join(work, `${run}.jsonl`) } };
}

async function connect(name, run) {
  const client = new Client({ name: "sidebyside", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ ...target(name, run), stderr: "ignore" }));
  return client;
}

const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");

// strictProblems lists what strict function calling refuses in a schema.
function strictProblems(path, s) {
  const out = [];
  if (typeof s.type !== "string") out.push(`${path}: type ${JSON.stringify(s.type)} is not one JSON type`);
  if (s.type === "object") {
    if (s.additionalProperties !== false) out.push(`${path}: not closed (additionalProperties ${JSON.stringify(s.additionalProperties)})`);
    const props = Object.keys(s.properties ?? {}).sort();
    const required = [...(s.required ?? [])].sort();
    if (JSON.stringify(props) !== JSON.stringify(required)) out.push(`${path}: properties ${props}, required ${required}`);
    for (const p of props) out.push(...strictProblems(`${path}.${p}`, s.properties[p]));
  }
  if (s.type === "array") out.push(...strictProblems(`${path}[]`, s.items ?? {}));
  return out;
}

// opened is a schema with additionalProperties: false taken out.
function opened(s) {
  if (Array.isArray(s)) return s.map(opened);
  if (s === null || typeof s !== "object") return s;
  const out = {};
  for (const [k, v] of Object.entries(s)) if (!(k === "additionalProperties" && v === false)) out[k] = opened(v);
  return out;
}

// A memory of people, teams, projects and places: 2,000 entities with 3
// to 6 observations of a sentence each, and 3 relations per person.
const large = 2000;
function workload() {
  const kinds = ["person", "team", "project", "city"];
  const words = ["reviews", "prefers", "asked about", "is blocked on", "shipped", "owns", "wants", "dislikes", "mentors", "reported"];
  const things = ["the login redirect", "cookie paths", "the release checklist", "Go 1.26", "the cabinet format", "weekly demos",
    "flaky tests", "the on-call rota", "dark mode", "the migration plan", "retry budgets", "the style guide"];
  const entities = [];
  for (let i = 0; i < large; i++) {
    const kind = kinds[i % 4];
    const obs = [];
    for (let j = 0; j < 3 + (i % 4); j++) {
      obs.push(`${words[(i * 7 + j * 3) % words.length]} ${things[(i * 5 + j) % things.length]} since sprint ${(i + j) % 9 + 1}`);
    }
    entities.push({ name: `${kind}_${i}`, entityType: kind, observations: obs });
  }
  const relations = [];
  const types = ["works_on", "member_of", "lives_in", "knows"];
  for (let i = 0; i < large; i += 4) {
    for (let r = 0; r < 3; r++) {
      const j = (i + 4 * r + 1 + r) % large;
      relations.push({ from: entities[i].name, to: entities[j].name, relationType: types[(i + r) % 4] });
    }
  }
  for (let i = 1; i < large; i += 4) {
    relations.push({ from: entities[i].name, to: entities[(i + 5) % large].name, relationType: "depends_on" });
  }
  return { entities, relations };
}

// A small memory of people, projects and tasks, as an agent's memory
// of one team looks: 30 entities of 1 to 3 observations each, and 44
// relations.
function smallWorkload() {
  const people = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"];
  const roles = ["backend engineer", "designer", "product manager", "frontend engineer", "data analyst"];
  const projects = ["apollo", "borealis", "cygnus", "draco", "eos"];
  const entities = [];
  people.forEach((p, i) => {
    const obs = [`${roles[i % roles.length]}`, `prefers ${["async updates", "short meetings", "written specs"][i % 3]}`];
    if (i % 3 === 0) obs.push(`based in ${["Lisbon", "Oslo", "Austin", "Kyoto"][i % 4]}`);
    entities.push({ name: p, entityType: "person", observations: obs });
  });
  projects.forEach((p, i) => {
    entities.push({ name: p, entityType: "project", observations: [`due in Q${i % 4 + 1}`, `led by ${people[i * 2]}`] });
  });
  const tasks = [];
  for (let i = 0; i < 15; i++) {
    const name = `task_${["login", "billing", "search", "export", "onboarding"][i % 5]}_${Math.floor(i / 5) + 1}`;
    const obs = [`status ${["open", "in review", "blocked", "done"][i % 4]}`];
    if (i % 2 === 0) obs.push(`reviewed by ${people[(i + 3) % 10]}`);
    tasks.push(name);
    entities.push({ name, entityType: "task", observations: obs });
  }
  const relations = [];
  tasks.forEach((t, i) => {
    relations.push({ from: t, to: people[i % 10], relationType: "assigned_to" });
    relations.push({ from: t, to: projects[i % 5], relationType: "part_of" });
  });
  people.forEach((p, i) => relations.push({ from: p, to: projects[i % 5], relationType: "works_on" }));
  for (let i = 1; i <= 4; i++) relations.push({ from: people[i], to: people[0], relationType: "reports_to" });
  return { entities, relations };
}

// A second small memory, as an agent's notes on a team grow: 24 entities
// with longer observations (two to four sentences) and a project with 14
// relations, so a small memory's reads are held to the original's at
// another shape.
function teamWorkload() {
  const people = ["yuki", "omar", "lena", "raj", "sofia", "tom", "ines", "kai"];
  const topics = ["the billing migration", "on-call handover", "the search rewrite", "API deprecations", "the design system", "flaky CI"];
  const entities = [];
  people.forEach((p, i) => {
    const obs = [`${p} joined in ${2019 + (i % 5)} and works from ${["Tokyo", "Cairo", "Berlin", "Pune"][i % 4]}`,
      `prefers ${["pairing", "written reviews", "short standups", "async demos"][i % 4]} and is wary of ${topics[(i + 2) % 6]}`];
    if (i % 2 === 0) obs.push(`asked last week about ${topics[i % 6]} and wants a decision by Friday`);
    if (i % 3 === 0) obs.push(`is the contact for ${topics[(i + 1) % 6]} while the lead is away`);
    entities.push({ name: p, entityType: "person", observations: obs });
  });
  const projects = ["atlas", "beacon", "comet", "delta"];
  projects.forEach((p, i) => entities.push({ name: p, entityType: "project",
    observations: [`ships ${["monthly", "weekly", "quarterly", "on demand"][i]}`, `its risk is ${topics[(i + 3) % 6]}`] }));
  for (let i = 0; i < 12; i++) {
    entities.push({ name: `note_${i}`, entityType: "note",
      observations: [`${topics[i % 6]}: ${["agreed", "open question", "blocked", "done"][i % 4]} after the ${["Monday", "Wednesday", "Friday"][i % 3]} sync`] });
  }
  const relations = [];
  people.forEach((p, i) => relations.push({ from: p, to: projects[i % 4], relationType: "works_on" }));
  for (let i = 0; i < 12; i++) relations.push({ from: `note_${i}`, to: i < 6 ? "atlas" : projects[i % 4], relationType: "about" });
  for (let i = 1; i < 8; i++) relations.push({ from: people[i], to: people[(i * 3) % 8], relationType: "asks" });
  return { entities, relations };
}

// Each memory's reads: a search that hits, one that misses, opening one
// name and several, and the whole graph. Every one of them is held to
// the original's tokens.
const memories = {
  large: {
    workload,
    reads: [
      ["open_nodes", { names: ["person_0"] }],
  ["open_nodes", { names: ["person_0", "team_1", "project_2"] }],
  ["open_nodes", { names: ["person_4", "person_8", "city_3"] }],
  ["search_nodes", { query: "cookie" }],
  ["search_nodes", { query: "person_1" }],
      ["search_nodes", { query: "dark mode" }],
      ["search_nodes", { query: "nothing like this" }],
      ["read_graph", {}],
    ],
  },
  small: {
    workload: smallWorkload,
    reads: [
      ["search_nodes", { query: "alice" }],
      ["search_nodes", { query: "zebra" }],
      ["open_nodes", { names: ["alice"] }],
      ["open_nodes", { names: ["alice", "apollo", "task_login_1"] }],
      ["open_nodes", { names: ["nobody"] }],
      ["read_graph", {}],
    ],
  },
  team: {
    workload: teamWorkload,
    reads: [
      ["search_nodes", { query: "yuki" }],
      ["search_nodes", { query: "billing" }],
      ["search_nodes", { query: "nothing here" }],
      ["open_nodes", { names: ["atlas"] }],
      ["open_nodes", { names: ["yuki", "lena"] }],
      ["read_graph", {}],
    ],
  },
};

async function run(name) {
  const c = await connect(name, "large");
  const { tools } = await c.listTools();
  const schemas = {};
  const outputSchemas = {};
  const annotations = {};
  for (const t of tools) {
    annotations[t.name] = t.annotations;
    outputSchemas[t.name] = t.outputSchema ?? null;
    if (name === "goldfish") {
      const problems = strictProblems(t.name, t.inputSchema);
      if (problems.length > 0) throw new Error(`goldfish's input schemas are not strict:\n${problems.join("\n")}`);
      schemas[t.name] = opened(t.inputSchema);
    } else {
      schemas[t.name] = t.inputSchema;
    }
  }
  const out = [];
  for (const [memory, m] of Object.entries(memories)) {
    const mc = memory === "large" ? c : await connect(name, memory);
    const { entities, relations } = m.workload();
    for (let i = 0; i < entities.length; i += 12) await mc.callTool({ name: "create_entities", arguments: { entities: entities.slice(i, i + 12) } });
    for (let i = 0; i < relations.length; i += 100) await mc.callTool({ name: "create_relations", arguments: { relations: relations.slice(i, i + 100) } });
    if (memory === "large") {
      await mc.callTool({ name: "add_observations", arguments: { observations: [{ entityName: "person_0", contents: ["took over the cabinet format review"] }] } });
    }
    for (const [tool, args] of m.reads) {
      const t0 = process.hrtime.bigint();
      const res = await mc.callTool({ name: tool, arguments: args });
      out.push({ memory, tool, args, text: text(res), structured: res.structuredContent ?? null, isError: !!res.isError,
        ms: Number(process.hrtime.bigint() - t0) / 1e6 });
    }
    if (memory !== "large") await mc.close();
  }
  // Goldfish's sessions as resources, their completion and the prompt,
  // as the TypeScript client asks for them.
  let extras = null;
  if (name === "goldfish") {
    const { resources } = await c.listResources();
    const { resourceTemplates } = await c.listResourceTemplates();
    const read = await c.readResource({ uri: "goldfish://sessions/memory" });
    const names = await c.complete({ ref: { type: "ref/resource", uri: "goldfish://sessions/{name}" }, argument: { name: "name", value: "mem" } });
    const nicks = await c.complete({ ref: { type: "ref/resource", uri: "goldfish://sessions/{name}/nodes/{nick}" },
      argument: { name: "nick", value: "person_1" }, context: { arguments: { name: "memory" } } });
    const none = await c.complete({ ref: { type: "ref/resource", uri: "goldfish://sessions/{name}" }, argument: { name: "name", value: "zzz" } });
    const prompt = await c.getPrompt({ name: "use_goldfish", arguments: { session: "memory" } });
    let missing = null;
    try { await c.readResource({ uri: "goldfish://sessions/nothere" }); } catch (e) { missing = String(e.message ?? e); }
    extras = {
      resources: resources.map((r) => r.uri), templates: resourceTemplates.map((t) => t.uriTemplate),
      outline: read.contents[0].text, names: names.completion.values, nicks: nicks.completion.values, none: none.completion.values,
      prompt: prompt.messages[0].content.text, missing,
    };
  }
  await c.close();

  // 40 writes at once, each a create_entities of one entity.
  const w = await connect(name, "concurrent");
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: 40 }, (_, i) =>
    w.callTool({ name: "create_entities", arguments: { entities: [{ name: `c${i}`, entityType: "note", observations: [`write ${i}`] }] } })));
  const writeMs = Number(process.hrtime.bigint() - t0) / 1e6;
  await w.close();
  // Kept is what a fresh process reads back from the file.
  const r = await connect(name, "concurrent");
  const names = Array.from({ length: 40 }, (_, i) => `c${i}`);
  let kept = 0;
  for (let i = 0; i < 40; i += 20) {
    const res = await r.callTool({ name: "open_nodes", arguments: { names: names.slice(i, i + 20) } });
    const body = text(res);
    kept += names.slice(i, i + 20).filter((n) => body.includes(`"${n}"`)).length;
  }
  await r.close();
  return { schemas, outputSchemas, annotations, reads: out, kept, writeMs, extras };
}

// load drives one target with a fixed number of calls, `clients` of them
// in flight at a time over the one connection, and returns the calls per
// second and the 50th and 99th percentile latencies in milliseconds.
async function load(c, clients, calls, make) {
  const lat = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let i = next++; i < calls; i = next++) {
      const s = process.hrtime.bigint();
      const res = await c.callTool(make(i));
      if (res.isError) throw new Error(text(res));
      lat.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
  }));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  return { clients, calls, perSec: calls / secs, p50: q(0.5), p99: q(0.99) };
}

async function loadRun(name) {
  const c = await connect(name, "load");
  const { entities, relations } = workload();
  for (let i = 0; i < entities.length; i += 12) await c.callTool({ name: "create_entities", arguments: { entities: entities.slice(i, i + 12) } });
  await c.callTool({ name: "create_relations", arguments: { relations } });
  const out = { search_nodes: [], create_entities: [] };
  const queries = ["cookie", "person_1", "dark mode", "sprint 3", "team"];
  let n = 0;
  for (const clients of [1, 8, 64]) {
    out.search_nodes.push(await load(c, clients, 400, (i) => ({ name: "search_nodes", arguments: { query: queries[i % queries.length] } })));
    out.create_entities.push(await load(c, clients, 400, () => {
      const k = n++;
      return { name: "create_entities", arguments: { entities: [{ name: `load_${k}`, entityType: "note", observations: [`written under load, call ${k}`] }] } };
    }));
  }
  await c.close();
  return out;
}

const result = { goldfish: await run("goldfish"), original: await run("original") };
for (const [tool, want] of Object.entries(result.original.annotations)) {
  const got = result.goldfish.annotations[tool];
  for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
    if ((got?.[hint] ?? null) !== (want?.[hint] ?? null)) {
      throw new Error(`${tool}: goldfish's ${hint} is ${got?.[hint]}, the original's ${want?.[hint]}`);
    }
  }
}
if (process.argv.includes("--load")) {
  result.load = { goldfish: await loadRun("goldfish"), original: await loadRun("original") };
}
process.stdout.write(JSON.stringify(result));
