// A coding agent's session, scripted: its memory grows over 50-odd turns
// of the knowledge-graph memory tools (people, services, files, decisions
// and tasks), the same calls against goldfish (gqlsh mcp) and against the
// original memory server, through the official TypeScript client. Then
// the agent asks its questions: each one of the original (search_nodes
// or open_nodes, as an agent would call them) and of goldfish (recall,
// written as its tool description teaches). Prints one JSON object: the
// questions with the facts that answer them and both answers' text. The
// Go test that runs it (TestAgentSession) checks the facts and counts
// the tokens.
//
//   node agentsession.mjs GQLSH_BINARY WORK_DIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createRequire } from "node:module";
import path from "node:path";

const [gqlsh, work] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const original = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist", "index.js");

// session is the memory tools' session of gqlsh mcp (server.DefaultMemorySession).
const session = "memory";

function target(name) {
  if (name === "goldfish") {
    return { command: gqlsh, args: ["mcp", "--cabinet", path.join(work, "x.gf")], env: { ...process.env } };
  }
  return { command: process.execPath, args: [original], env: { ...process.env, MEMORY_FILE_PATH: path.join(work, "x.jsonl") } };
}

const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");

const entity = (name, entityType, ...observations) => ({ name, entityType, observations });
const rel = (from, relationType, to) => ({ from, to, relationType });
const create = (...entities) => ["create_entities", { entities }];
const relate = (...relations) => ["create_relations", { relations }];
const observe = (entityName, ...contents) => ["add_observations", { observations: [{ entityName, contents }] }];
const unobserve = (entityName, ...observations) => ["delete_observations", { deletions: [{ entityName, observations }] }];

// The session's turns, in the order an agent meets the facts: the user
// and the team first, then the services it reads, the files it opens,
// the decisions it is told about and the tasks it works on, with facts
// added as they come up and a few corrected.
const turns = [
  // 1-6: who the agent works with.
  create(entity("alice", "person", "Tech lead of the payments team", "Prefers small pull requests under 300 lines",
    "Works from Lisbon, UTC+0; keeps mornings for deep work")),
  create(entity("judy", "person", "Engineering manager of the payments team", "Approves changes to the on-call rota")),
  relate(rel("alice", "reports_to", "judy")),
  create(entity("bob", "person", "Backend engineer on billing-api since 2023", "Writes Go and dislikes ORMs"),
    entity("carol", "person", "Site reliability engineer", "Keeps the Grafana dashboards and the alert rules")),
  create(entity("dave", "person", "Frontend engineer working on the checkout page", "Uses TypeScript strict mode everywhere"),
    entity("erin", "person", "Product manager for payments", "Runs the Tuesday planning meeting")),
  relate(rel("alice", "mentors", "bob"), rel("alice", "mentors", "dave"), rel("alice", "works_with", "erin")),
  // 7-12: the services.
  create(entity("billing-api", "service", "Go service that computes invoices and charges cards through Stripe",
    "Runs 6 replicas on the prod-eu cluster")),
  create(entity("auth-service", "service", "Issues JWT access tokens valid for 15 minutes", "Stores refresh sessions in Redis"),
    entity("api-gateway", "service", "Envoy gateway in front of every public API")),
  relate(rel("alice", "owns", "billing-api"), rel("alice", "owns", "api-gateway"), rel("billing-api", "depends_on", "auth-service"),
    rel("api-gateway", "depends_on", "auth-service"), rel("api-gateway", "routes_to", "billing-api")),
  create(entity("frank", "person", "Security engineer", "Must approve any change that touches auth tokens"),
    entity("redis-cache", "service", "Redis 7 cluster with 3 shards", "Eviction policy is allkeys-lru")),
  relate(rel("frank", "owns", "auth-service"), rel("carol", "owns", "redis-cache"), rel("auth-service", "depends_on", "redis-cache"),
    rel("api-gateway", "depends_on", "redis-cache")),
  observe("billing-api", "p99 latency target is 250 ms", "Deploys need a green canary for 30 minutes"),
  // 13-18: more of the team, and the rest of the services.
  create(entity("grace", "person", "Data engineer", "Maintains the nightly export to the warehouse"),
    entity("search-indexer", "service", "Consumes product events from Kafka and writes them to OpenSearch")),
  create(entity("notify-worker", "service", "Sends invoice emails and SMS from a queue", "Python 3.12 worker"),
    entity("heidi", "person", "QA engineer", "Keeps the end-to-end suite green", "Flags flaky tests in the qa-flakes channel")),
  relate(rel("grace", "owns", "search-indexer"), rel("bob", "owns", "notify-worker"), rel("billing-api", "depends_on", "notify-worker"),
    rel("notify-worker", "depends_on", "redis-cache")),
  create(entity("ivan", "person", "Database administrator", "Handles Postgres upgrades and vacuum tuning"),
    entity("judy-oncall-note", "note", "The on-call rota changes every Monday at 10:00 Lisbon time")),
  relate(rel("judy", "wrote", "judy-oncall-note"), rel("alice", "works_with", "ivan"), rel("judy", "manages", "carol")),
  observe("ivan", "Warned that the invoices table is 180 GB and an ALTER locks it for minutes"),
  // 19-24: what alice likes, as the agent learns it from her reviews.
  create(entity("table-driven-tests", "practice", "Go tests as a table of cases run in a loop"),
    entity("golangci-lint", "tool", "Linter runner; the repo config is .golangci.yml")),
  relate(rel("alice", "prefers", "table-driven-tests"), rel("alice", "prefers", "golangci-lint")),
  create(entity("squash-merge", "practice", "One commit per pull request on main"),
    entity("delve", "tool", "Go debugger, run as dlv test")),
  relate(rel("alice", "prefers", "squash-merge"), rel("alice", "prefers", "delve")),
  observe("alice", "Reviews every change to the billing code herself", "Wants a design doc before any schema migration"),
  create(entity("feature-flags", "practice", "Risky changes ship dark behind a flag in LaunchDarkly")),
  // 25-30: the files the agent opens.
  relate(rel("alice", "prefers", "feature-flags")),
  create(entity("billing/invoice.go", "file", "Computes invoice totals; rounding happens in roundCents", "Has 94% test coverage"),
    entity("billing/stripe_client.go", "file", "Wraps the Stripe API with retries and idempotency keys"),
    entity("auth/session.go", "file", "Creates and refreshes sessions; the lifetime is the sessionTTL constant")),
  create(entity("auth/middleware.go", "file", "Checks the Authorization header on every request"),
    entity("gateway/router.go", "file", "Routes the /v2 paths to the new billing handlers"),
    entity("gateway/ratelimit.go", "file", "Token bucket rate limiter keyed by API key")),
  relate(rel("billing-api", "contains", "billing/invoice.go"), rel("billing-api", "contains", "billing/stripe_client.go"),
    rel("auth-service", "contains", "auth/session.go"), rel("auth-service", "contains", "auth/middleware.go"),
    rel("api-gateway", "contains", "gateway/router.go"), rel("api-gateway", "contains", "gateway/ratelimit.go"),
    rel("alice", "reviews", "billing/invoice.go"), rel("alice", "reviews", "gateway/router.go")),
  create(entity("indexer/consumer.go", "file", "Kafka consumer loop; commits offsets after each batch of 500"),
    entity("notify/templates/invoice_email.html", "file", "Email template for invoices; not yet localized"),
    entity("web/checkout/Payment.tsx", "file", "Checkout payment form; shows the card error from Stripe")),
  relate(rel("search-indexer", "contains", "indexer/consumer.go"), rel("notify-worker", "contains", "notify/templates/invoice_email.html")),
  // 31-36: decisions, with their rationale.
  create(entity("adr-007-redis-sessions", "decision", "Store refresh sessions in Redis instead of Postgres",
    "Rationale: session lookups were 30% of the Postgres load", "Accepted on 2024-02-12")),
  create(entity("adr-009-integer-cents", "decision", "Store money as integer cents, never as floats",
    "Rationale: float rounding produced 1-cent mismatches on invoices"),
    entity("adr-010-v2-behind-flag", "decision", "Ship the v2 billing handlers behind a feature flag",
      "Rationale: a bad release is rolled back without a deploy")),
  relate(rel("frank", "decided", "adr-007-redis-sessions"), rel("alice", "decided", "adr-009-integer-cents"),
    rel("alice", "decided", "adr-010-v2-behind-flag"), rel("adr-007-redis-sessions", "affects", "auth-service"),
    rel("adr-009-integer-cents", "affects", "billing-api"), rel("adr-010-v2-behind-flag", "affects", "api-gateway")),
  create(entity("adr-008-grpc-internal", "decision", "Use gRPC between internal services; REST stays at the gateway",
    "Rationale: typed contracts, and streaming for the indexer"),
    entity("adr-011-playwright", "decision", "Replace Cypress with Playwright for the end-to-end tests",
      "Rationale: parallel runs cut the suite from 22 to 7 minutes")),
  relate(rel("bob", "decided", "adr-008-grpc-internal"), rel("heidi", "decided", "adr-011-playwright"),
    rel("adr-008-grpc-internal", "affects", "search-indexer")),
  create(entity("migrations/0042_add_invoice_currency.sql", "file", "Adds a currency column to invoices, default EUR")),
  // 37-44: the tasks, and their progress.
  create(entity("task-fix-invoice-rounding", "task", "status: open", "Totals are off by one cent on invoices with 3+ lines"),
    entity("task-add-currency-column", "task", "status: open", "Multi-currency invoices for the EU launch")),
  relate(rel("task-fix-invoice-rounding", "assigned_to", "bob"), rel("task-fix-invoice-rounding", "touches", "billing/invoice.go"),
    rel("task-add-currency-column", "assigned_to", "ivan"), rel("task-add-currency-column", "touches", "migrations/0042_add_invoice_currency.sql"),
    rel("task-add-currency-column", "touches", "billing/invoice.go")),
  create(entity("task-localize-invoice-email", "task", "status: open", "Translate the invoice email into German and French"),
    entity("task-rotate-jwt-keys", "task", "status: open", "Rotate the JWT signing keys before June 1"),
    entity("task-gateway-v2-routes", "task", "status: open", "Route /v2/invoices through the feature flag")),
  relate(rel("task-localize-invoice-email", "assigned_to", "dave"), rel("task-localize-invoice-email", "touches", "notify/templates/invoice_email.html"),
    rel("task-rotate-jwt-keys", "assigned_to", "frank"), rel("task-rotate-jwt-keys", "touches", "auth/session.go"),
    rel("task-rotate-jwt-keys", "touches", "auth/middleware.go"), rel("task-gateway-v2-routes", "assigned_to", "alice"),
    rel("task-gateway-v2-routes", "touches", "gateway/router.go")),
  unobserve("task-fix-invoice-rounding", "status: open"),
  observe("task-fix-invoice-rounding", "status: done", "Fixed in roundCents; merged as PR #412"),
  create(entity("task-reindex-catalog", "task", "status: done", "Full reindex of the catalog took 38 minutes"),
    entity("task-flaky-checkout-test", "task", "status: open", "The checkout end-to-end test fails 1 run in 20 on CI"),
    entity("task-raise-rate-limit", "task", "status: open", "Raise the partner API rate limit to 300 requests per second")),
  relate(rel("task-reindex-catalog", "assigned_to", "grace"), rel("task-reindex-catalog", "touches", "indexer/consumer.go"),
    rel("task-flaky-checkout-test", "assigned_to", "heidi"), rel("task-flaky-checkout-test", "touches", "web/checkout/Payment.tsx"),
    rel("task-raise-rate-limit", "assigned_to", "alice"), rel("task-raise-rate-limit", "touches", "gateway/ratelimit.go")),
  // 45-50: corrections and late facts.
  unobserve("task-add-currency-column", "status: open"),
  observe("task-add-currency-column", "status: done", "Migration 0042 ran in prod on 2024-03-02"),
  unobserve("task-gateway-v2-routes", "status: open"),
  observe("task-gateway-v2-routes", "status: done", "Behind the billing_v2 flag, on for 5% of traffic"),
  observe("erin", "Wants invoice emails localized before the EU launch"),
  observe("gateway/ratelimit.go", "Counters live in redis-cache, one key per API key per second"),
  relate(rel("dave", "touched", "web/checkout/Payment.tsx"), rel("carol", "works_with", "ivan"), rel("alice", "mentors", "heidi"),
    rel("alice", "works_with", "frank")),
  observe("carol", "Asks that every new service ship with a runbook"),
];

// The questions: what the agent asks, the facts that answer it (strings
// its answer must hold), the original's call and goldfish's recall. A
// note says when the original cannot answer in one call (its facts are
// then not held against it).
const nick = (n) => `MATCH (n {nick: '${n}'})`;
// The recall tool's description teaches k 1 to keep a keyword read to
// its matches, and LIMIT 10 to list the nodes of a kind.
const keyword = (w) => ({ q: `MATCH (n) WHERE n CONTAINS '${w}'`, options: { k: 1 } });
const kind = (k) => `MATCH (n:${k}) LIMIT 10`;
const open = (...names) => ["open_nodes", { names }];
const search = (query) => ["search_nodes", { query }];
const questions = [
  // Point questions: one entity by name, its own facts and its neighbours' names.
  { q: "What do we know about bob?", facts: ["Backend engineer on billing-api", "dislikes ORMs", "notify-worker", "adr-008-grpc-internal"],
    original: open("bob"), recall: nick("bob") },
  { q: "What is ivan worried about with the invoices table?", facts: ["180 GB"], original: open("ivan"), recall: nick("ivan") },
  { q: "What is the p99 latency target of billing-api?", facts: ["250 ms"], original: open("billing-api"), recall: nick("billing-api") },
  { q: "What is the status of task-gateway-v2-routes?", facts: ["status: done", "billing_v2 flag"],
    original: open("task-gateway-v2-routes"), recall: nick("task-gateway-v2-routes") },
  { q: "What does erin want before the EU launch?", facts: ["localized before the EU launch"], original: open("erin"), recall: nick("erin") },
  { q: "Why did we store refresh sessions in Redis?", facts: ["30% of the Postgres load"],
    original: open("adr-007-redis-sessions"), recall: nick("adr-007-redis-sessions") },
  // Relation questions: a neighbour's name, either way along an edge.
  { q: "What does alice prefer?", facts: ["table-driven-tests", "golangci-lint", "squash-merge", "delve", "feature-flags"],
    original: open("alice"), recall: nick("alice") },
  { q: "Who owns auth-service?", facts: ["frank"], original: open("auth-service"), recall: nick("auth-service") },
  { q: "Who owns billing-api, and what does it depend on?", facts: ["alice", "auth-service", "notify-worker"],
    original: open("billing-api"), recall: nick("billing-api") },
  { q: "Which services depend on redis-cache?", facts: ["auth-service", "api-gateway", "notify-worker"],
    original: open("redis-cache"), recall: nick("redis-cache") },
  { q: "Who mentors dave?", facts: ["alice"], original: open("dave"), recall: nick("dave") },
  { q: "Which tasks touch billing/invoice.go?", facts: ["task-fix-invoice-rounding", "task-add-currency-column"],
    original: open("billing/invoice.go"), recall: nick("billing/invoice.go") },
  { q: "Which decisions did alice make?", facts: ["adr-009-integer-cents", "adr-010-v2-behind-flag"], original: open("alice"), recall: nick("alice") },
  { q: "What is carol responsible for, and what does she ask of new services?", facts: ["redis-cache", "runbook"],
    original: open("carol"), recall: nick("carol") },
  // Neighbourhood questions: a keyword, a kind, the open tasks.
  { q: "Which tasks are open?", facts: ["task-localize-invoice-email", "task-rotate-jwt-keys", "task-flaky-checkout-test", "task-raise-rate-limit"],
    original: search("status: open"), recall: keyword("status: open") },
  { q: "What in our stack uses Redis?", facts: ["auth-service", "redis-cache", "adr-007-redis-sessions"],
    original: search("redis"), recall: keyword("redis") },
  { q: "Why do we keep money as integer cents?", facts: ["adr-009-integer-cents", "float rounding"],
    original: search("integer cents"), recall: keyword("integer cents") },
  { q: "Who must approve a change that touches auth tokens?", facts: ["frank"], original: search("auth tokens"), recall: keyword("auth tokens") },
  { q: "Who handles Postgres upgrades?", facts: ["ivan"], original: search("Postgres upgrades"), recall: keyword("Postgres upgrades") },
  { q: "Is the invoice email template localized yet?", facts: ["notify/templates/invoice_email.html", "not yet localized"],
    original: search("invoice_email"), recall: keyword("invoice_email") },
  { q: "What is the flaky checkout test, and who is on it?", facts: ["1 run in 20", "heidi"],
    original: search("checkout"), recall: keyword("checkout") },
  { q: "Which services do we run?", facts: ["billing-api", "auth-service", "api-gateway", "redis-cache", "search-indexer", "notify-worker"],
    original: search("service"), recall: kind("service") },
  { q: "Which decisions have we recorded?",
    facts: ["adr-007-redis-sessions", "adr-008-grpc-internal", "adr-009-integer-cents", "adr-010-v2-behind-flag", "adr-011-playwright"],
    original: search("decision"), recall: kind("decision") },
  // A miss: a typo'd name. The answer must say plainly that nothing matched.
  { q: "What do we know about alcie?", miss: true, facts: [], original: open("alcie"), recall: nick("alcie") },
];

async function run(name) {
  const client = new Client({ name: "agentsession", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ ...target(name), stderr: "ignore" }));
  for (const [i, [tool, args]] of turns.entries()) {
    const res = await client.callTool({ name: tool, arguments: args });
    if (res.isError) throw new Error(`${name}, turn ${i + 1} (${tool}): ${text(res)}`);
  }
  const answers = [];
  for (const qu of questions) {
    const call = typeof qu.recall === "string" ? { q: qu.recall } : qu.recall;
    const [tool, args] = name === "goldfish" ? ["recall", { session, ...call }] : qu.original;
    const res = await client.callTool({ name: tool, arguments: args });
    answers.push({ tool, args, text: text(res), isError: !!res.isError });
  }
  await client.close();
  return answers;
}

const goldfish = await run("goldfish");
const orig = await run("original");
process.stdout.write(JSON.stringify({
  turns: turns.length,
  questions: questions.map((qu, i) => ({ q: qu.q, facts: qu.facts, miss: !!qu.miss, note: qu.note ?? "", original: orig[i], goldfish: goldfish[i] })),
}));
