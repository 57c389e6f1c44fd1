// Starts the original knowledge-graph memory server on a memory file and
// prints the text of its read_graph, through the official TypeScript
// client, as sidebyside.mjs talks to it. The Go round-trip test of
// gqlsh export-memory runs it.
//
//   node readgraph.mjs MEMORY_FILE
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createRequire } from "node:module";
import path from "node:path";

const [file] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const original = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");
const client = new Client({ name: "readgraph", version: "1.0.0" });
await client.connect(new StdioClientTransport({
  command: process.execPath, args: [original], env: { ...process.env, MEMORY_FILE_PATH: path.resolve(file) }, stderr: "ignore",
}));
const res = await client.callTool({ name: "read_graph", arguments: {} });
process.stdout.write(res.content.filter((c) => c.type === "text").map((c) => c.text).join(""));
await client.close();
