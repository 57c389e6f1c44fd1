// An agent that never names itself, through the official TypeScript
// client over streamable HTTP (gqlsh serve's /mcp): no call names an
// agent, and the connection's own agent hears what a named one would.
// It reads a session (its first read), learns an action from the help
// text goldfish://help/vocabulary (the example there, taken from the
// text as an agent would, not written here), registers it, reads again
// once the action has gone uninvoked for a while (its yours), acts on
// a node with it, and reads once more (what changed since its last read).
// A second connection does the reads in between: another agent, with a
// first read of its own. Prints one JSON object of the calls and their
// answers; the Go test that runs it (TestMCPConnectionAgentNode) checks
// them.
//
//   node noagent.mjs BASE_URL SESSION
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [base, session] = process.argv.slice(2);

async function connect() {
  const client = new Client({ name: "noagent", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(base + "/mcp"));
  await client.connect(transport);
  return { client, transport };
}

const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  return { tool: name, args, text: text(res), structured: res.structuredContent ?? null, isError: !!res.isError };
}

const recall = (client) => call(client, "recall", { session, q: "MATCH ()" });
const commit = (client, t) => call(client, "commit", { session, text: t });

// example finds the action's example in the help text: the statement
// from "CREATE ACTION" to the line that closes its body ("};"), and the
// CALL that follows it, each without its ';'.
function example(help) {
  const lines = help.split("\n");
  const start = lines.findIndex((l) => l.trim().startsWith("CREATE ACTION "));
  if (start < 0) throw new Error("the help text has no CREATE ACTION:\n" + help);
  const end = lines.findIndex((l, i) => i >= start && l.trim().endsWith("};"));
  if (end < 0) throw new Error("the CREATE ACTION example does not end:\n" + help);
  const action = lines.slice(start, end + 1).map((l) => l.trim()).join("\n").replace(/;$/, "");
  const callLine = lines.slice(end + 1).find((l) => l.trim().startsWith("CALL "));
  if (!callLine) throw new Error("the help text has no CALL after its action:\n" + help);
  const callText = callLine.trim().replace(/;.*$/, "");
  const name = /^CREATE ACTION (\w+)\(/.exec(action)?.[1];
  const nick = /^CALL \w+\('([^']+)'/.exec(callText)?.[1];
  const kind = /MATCH \(\w+:(\w+) \{nick: \$nick\}\)/.exec(action)?.[1];
  if (!name || !nick || !kind) throw new Error(`the example is not as expected: ${action}\n${callText}`);
  return { action, call: callText, name, nick, kind };
}

const a = await connect();
const out = { sessionId: null, reads: {}, commits: {} };
// 1. The first read.
out.reads.first = await recall(a.client);
out.sessionId = a.transport.sessionId ?? null;
// 2. The action from the help text, registered.
const help = await a.client.readResource({ uri: "goldfish://help/vocabulary" });
const ex = example(help.contents.map((c) => c.text ?? "").join(""));
out.example = ex;
out.commits.action = await commit(a.client, ex.action);
// Another connection reads while the action goes uninvoked.
const b = await connect();
out.reads.other = await recall(b.client);
for (let i = 0; i < 10; i++) await recall(b.client);
out.otherSessionId = b.transport.sessionId ?? null;
// 3. Read again: the action registered since, and the agent's own
// action never invoked (yours).
out.reads.registered = await recall(a.client);
// 4. A node to act on, and the action run on it.
out.commits.insert = await commit(a.client, `INSERT (:${ex.kind} {nick: '${ex.nick}', status: 'open'})`);
out.commits.call = await commit(a.client, ex.call);
// 5. Read again: the action invoked since.
out.reads.invoked = await recall(a.client);
await b.client.close();
await a.client.close();
process.stdout.write(JSON.stringify(out));
