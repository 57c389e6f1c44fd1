// An MCP client without a token, through the official TypeScript client
// over streamable HTTP, against gqlsh serve --tokens: once as a plain
// client, once with an OAuth provider as the MCP Inspector gives one.
// Prints one JSON object: each connection's error message, and which of
// the provider's OAuth steps ran (none should: the server has no OAuth).
//
//   node notoken.mjs BASE_URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [base] = process.argv.slice(2);
const steps = [];

// provider is an OAuthClientProvider that notes each step asked of it.
const provider = {
  get redirectUrl() { return "http://127.0.0.1:1/callback"; },
  get clientMetadata() { return { redirect_uris: ["http://127.0.0.1:1/callback"], client_name: "notoken" }; },
  clientInformation() { steps.push("clientInformation"); return undefined; },
  saveClientInformation() { steps.push("saveClientInformation"); },
  tokens() { steps.push("tokens"); return undefined; },
  saveTokens() { steps.push("saveTokens"); },
  redirectToAuthorization() { steps.push("redirectToAuthorization"); },
  saveCodeVerifier() { steps.push("saveCodeVerifier"); },
  codeVerifier() { steps.push("codeVerifier"); return "v"; },
};

async function attempt(opts) {
  const client = new Client({ name: "notoken", version: "1" });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(base + "/mcp"), opts));
    await client.close();
    return { connected: true };
  } catch (e) {
    return { connected: false, message: String(e && e.message) };
  }
}

const plain = await attempt({});
const withOAuth = await attempt({ authProvider: provider });
console.log(JSON.stringify({ plain, withOAuth, steps }));
