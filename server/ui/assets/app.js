// app.js is the memory browser's state and its talk with the /v1 API.
// The state is the address (#session=NAME&q=TOKEN&at=N, and diff=A,B),
// so a link opens a session, a Recall or a version; the page only ever
// renders data with textContent and createElement(NS).
"use strict";

(function () {
  var $ = function (id) { return document.getElementById(id); };
  var TOKEN_KEY = "goldfish-token";
  var state = {}; // what the address says
  var shown = { session: "", version: -1 }; // what the page shows
  var poll = { timer: 0, failures: 0 };
  var waiting = []; // requests to send again once a token is given
  var cur = null; // the drawing: {sh, g, view, selected}
  var styled = ""; // the session whose kinds have their styles

  // h makes an HTML element with text (never markup) and children.
  function h(tag, cls, text, kids) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    (kids || []).forEach(function (k) { if (k) e.appendChild(k); });
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  function status(msg, bad) { var s = $("status"); s.textContent = msg || ""; s.className = bad ? "bad" : ""; }

  // readHash and writeHash keep the state in the address.
  function readHash() {
    var p = new URLSearchParams(location.hash.slice(1)), s = {};
    p.forEach(function (v, k) { s[k] = v; });
    return s;
  }
  function writeHash(s) {
    var p = new URLSearchParams();
    ["session", "q", "at", "diff"].forEach(function (k) { if (s[k]) p.set(k, s[k]); });
    var next = "#" + p.toString();
    if (location.hash !== next) location.hash = next; // hashchange renders
    else render();
  }

  // api calls the server with the tab's token; a 401 asks for a token and
  // sends the call again once one is given. It rejects with
  // {status, body} or {offline: true}.
  function api(path, body) {
    var headers = { "Accept": "application/json" };
    var tok = sessionStorage.getItem(TOKEN_KEY);
    if (tok) headers["Authorization"] = "Bearer " + tok;
    var init = { headers: headers, cache: "no-store" };
    if (body !== undefined) {
      init.method = "POST";
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (r) {
      return r.text().then(function (text) {
        var data = null;
        try { data = JSON.parse(text); } catch (e) { data = { message: text }; }
        if (r.status === 401) {
          return new Promise(function (resolve, reject) {
            waiting.push(function () { api(path, body).then(resolve, reject); });
            askToken(tok ? "The server refused that token: give another." : "This server asks for a token.");
          });
        }
        if (!r.ok) return Promise.reject({ status: r.status, body: data || {} });
        return data;
      });
    }, function () { return Promise.reject({ offline: true }); });
  }
  function failure(err) {
    if (err && err.offline) return "the server does not answer";
    var b = (err && err.body) || {};
    return (b.gqlstatus ? b.gqlstatus + ": " : "") + (b.message || "HTTP " + (err && err.status)) + (b.hint ? " (" + b.hint + ")" : "");
  }

  function askToken(why) {
    $("login-why").textContent = why;
    $("login").hidden = false;
    $("token").focus();
  }
  $("login").addEventListener("submit", function (ev) {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("token").value.trim());
    $("token").value = "";
    $("login").hidden = true;
    var again = waiting; waiting = [];
    again.forEach(function (f) { f(); });
  });

  function path(name, rest) { return "/v1/sessions/" + encodeURIComponent(name) + (rest || ""); }

  // The session list.
  function loadSessions() {
    return api("/v1/sessions").then(function (d) {
      var ul = clear($("sessions"));
      if (!d.sessions.length) ul.appendChild(h("li", "hint", "No session yet."));
      d.sessions.forEach(function (s) {
        var a = h("a", s.name === state.session ? "current" : "", s.name);
        a.href = "#" + new URLSearchParams({ session: s.name }).toString();
        a.setAttribute("data-session", s.name);
        ul.appendChild(h("li", "", null, [a, h("div", "meta",
          "v" + s.version + " · " + s.nodes + " nodes · " + s.edges + " edges" + (s.last_commit ? " · " + when(s.last_commit) : ""))]));
      });
    }, function (err) { status(failure(err), true); });
  }
  function when(t) { return new Date(t).toLocaleString(); }

  // render shows what the address says.
  function render() {
    state = readHash();
    loadSessions();
    if (!state.session) { $("session").hidden = true; $("where").textContent = ""; return; }
    $("session").hidden = false;
    $("where").textContent = state.session;
    $("q").value = state.q || "";
    $("at").value = state.at || "";
    shown.session = state.session;
    loadInfo().then(loadKinds).then(function () {
      recall();
      loadVocabulary();
      loadVersions();
      showDiff();
    });
    schedule();
  }

  function loadInfo() {
    return api(path(state.session)).then(function (s) {
      var head = clear($("session-head"));
      head.appendChild(h("h2", "", state.session));
      head.appendChild(h("span", "meta", "version " + s.version + " · " + s.nodes + " nodes · " + s.edges + " edges" +
        (s.last_commit ? " · last commit " + when(s.last_commit) : "")));
      shown.version = s.version;
      status("");
    }, function (err) { status(failure(err), !err.offline); if (err.offline) offline(); });
  }

  // loadKinds gives the session's kinds their colours and shapes, in the
  // order of their names, before anything is drawn: a kind keeps its
  // style whatever the Shape.
  function loadKinds() {
    var name = state.session;
    if (styled === name) return null;
    return api(path(name, "/kinds")).then(function (d) {
      Graph.styles.reset();
      d.kinds.map(function (k) { return k.kind; }).sort().forEach(function (k) { Graph.styles.of(k); });
      styled = name;
    }, function () { Graph.styles.reset(); });
  }

  // recall sends the Recall box and draws its answer.
  function recall() {
    var body = { q: state.q || "MATCH ()", options: { rows: true } };
    ["L", "k", "M", "F", "T"].forEach(function (o) {
      var v = $("opt-" + o).value;
      if (v !== "") body.options[o] = Number(v);
    });
    if ($("agent").value.trim()) body.agent = $("agent").value.trim();
    if (state.at) body.at_version = Number(state.at);
    return api(path(state.session, "/recall"), body).then(drawShape, function (err) {
      clear($("graph")); clear($("attention")); clear($("notices")); clear($("legend"));
      $("gql").textContent = ""; $("miss").hidden = true; closePanel(); cur = null;
      $("notices").appendChild(h("li", "bad", failure(err)));
    });
  }

  // IDENTITY_KEYS are the properties a trimmed row shows, in the order
  // that tells a node apart first.
  var IDENTITY_KEYS = ["nick", "loc", "name", "title"], IDENTITY = {};
  IDENTITY_KEYS.forEach(function (k) { IDENTITY[k] = true; });

  // identityKeys are the identity properties props holds as text, in order.
  function identityKeys(props) {
    return IDENTITY_KEYS.filter(function (k) { return typeof props[k] === "string"; });
  }

  // literal writes a value of a row's JSON as GQL writes it (a DATE is
  // {"date": …}, a DATETIME {"datetime": …}).
  function literal(v) {
    if (v === null) return "null";
    if (typeof v === "string") return JSON.stringify(v);
    if (Array.isArray(v)) return "[" + v.map(literal).join(", ") + "]";
    if (typeof v === "object") return v.date ? "DATE '" + v.date + "'" : v.datetime ? "DATETIME '" + v.datetime + "'" : JSON.stringify(v);
    return String(v);
  }

  // rowProps are the properties a row shows: its identity alone when it
  // is trimmed, an elided value as its $parameter.
  function rowProps(r) {
    var elided = {};
    (r.elided || []).forEach(function (e) { elided[e.key] = "$" + e.param; });
    // What the text shows of the row: all of it, its identity when
    // trimmed, or in brief no list (the first ring of an economical Shape).
    return Object.keys(r.props || {}).sort().filter(function (k) {
      if (r.trimmed) return IDENTITY[k];
      return !r.brief || IDENTITY[k] || !Array.isArray(r.props[k]);
    }).map(function (k) {
      var v = r.props[k];
      return { k: k, src: elided[k] || literal(v), str: typeof v === "string" && !elided[k] ? v : null };
    });
  }

  // shapeGraph is the Shape's rows as the drawing takes them: the
  // answer of a Recall asked with rows is the Shape as a value, so
  // nothing reads its GQL back.
  function shapeGraph(sh) {
    var nodes = (sh.nodes || []).map(function (r, i) {
      return { v: r.var, kind: r.labels[0] || "", labels: r.labels.slice(1), props: rowProps(r), how: "insert", n: i, seed: !!r.seed,
        row: r, trimmed: !!r.trimmed, brief: !!r.brief, more: r.more || 0, hop: r.hop, faded: !!sh.miss };
    });
    var edges = (sh.edges || []).map(function (r) {
      return { from: nodes[r.from].v, to: nodes[r.to].v, type: r.type, props: rowProps(r), how: "insert" };
    });
    return { nodes: nodes, edges: edges };
  }

  // nodeKey tells a node apart across Shapes (an expand merges one into
  // the drawing): its kind and its identity, else all its properties.
  function nodeKey(nd) {
    var p = (nd.row && nd.row.props) || {};
    var id = identityKeys(p)[0];
    return [nd.kind].concat(nd.labels || []).join(":") + "\u0001" + (id ? id + "=" + p[id] : JSON.stringify(p));
  }

  // headerTokens is the token count the Shape's header says (the whole
  // text the agent reads, envelope included).
  function headerTokens(sh) {
    var m = /^\/\/ goldfish [^\n]*? tokens=(\d+)/m.exec(sh.gql || "");
    return m ? Number(m[1]) : sh.tokens;
  }

  function drawShape(sh) {
    var t0 = performance.now();
    var g = shapeGraph(sh);
    var view = Graph.draw($("graph"), g, { ring: sh.cue === "match" && !sh.miss, key: nodeKey, onSelect: selectNode, onExpand: expand });
    var ms = performance.now() - t0;
    var was = cur && cur.selected ? nodeKey(cur.selected) : null;
    cur = { sh: sh, g: g, view: view, selected: null };
    window.goldfishDraw = { ms: ms, nodes: g.nodes.length, edges: g.edges.length, drawn: view.nodes.length };
    $("gql").textContent = sh.gql;
    closePanel();
    drawLegend(ms);
    var miss = $("miss");
    miss.hidden = !sh.miss;
    if (sh.miss) {
      var instead = { task: "the live tasks", peak: "the most connected nodes" }[sh.miss.instead];
      miss.textContent = "No match: " + (sh.miss.unmatched || []).join("; ") +
        (sh.miss.did_you_mean && sh.miss.did_you_mean.length ? ". Did you mean " + sh.miss.did_you_mean.join(" or ") + "?" : ".") +
        (instead ? " Drawn instead of a match (faded): " + instead + ", not an answer to q." : " Nothing is drawn.");
    }
    var ul = clear($("notices"));
    (sh.notices || []).forEach(function (n) { ul.appendChild(h("li", "notice", n.code + ": " + n.message)); });
    (sh.clamps || []).forEach(function (c) {
      ul.appendChild(h("li", "notice", "clamped: " + c + ". A node marked (+N) has N neighbours not drawn: double-click it to expand, or raise F."));
    });
    if (sh.truncated) ul.appendChild(h("li", "notice", "truncated: the Shape stopped at its row budget M (" + sh.M + "); raise M to see the rest."));
    if (sh.trimmed) ul.appendChild(h("li", "notice", "trimmed: the text shows " + sh.trimmed + " nodes by their identity only (dashed outline): click one for all its properties, or raise T."));
    if (sh.elided) ul.appendChild(h("li", "notice", "elided: " + sh.elided + " long values are left out of the text ($elided…); the panel shows them."));
    drawAttention(sh.attention, sh.miss);
    // The node the panel showed stays shown when the new Shape has it.
    var again = was && view.nodes.filter(function (x) { return !x.ghost && nodeKey(x) === was; })[0];
    if (again) selectNode(again);
  }

  // drawLegend lists the drawing's kinds, each with its mark, and what the
  // drawing is: how many matched seeds are ringed, the version, tokens.
  function drawLegend(ms) {
    var sh = cur.sh, g = cur.g, legend = clear($("legend")), kinds = {};
    g.nodes.forEach(function (nd) { kinds[nd.kind] = (kinds[nd.kind] || 0) + 1; });
    Object.keys(kinds).sort().forEach(function (k) {
      legend.appendChild(h("span", "kind", null, [Graph.swatch(k), document.createTextNode((k || "(no kind)") + " " + kinds[k])]));
    });
    var seeds = g.nodes.filter(function (nd) { return nd.seed; }).length, what;
    if (sh.miss) what = "no match: drawn instead of a match";
    else if (sh.cue === "outline") what = "the outline: a few nodes of each kind, no seed";
    else if (sh.cue === "match") what = seeds + (seeds === 1 ? " matched seed" : " matched seeds") + " (ringed)";
    else what = "seeded by " + sh.cue + " (not a match)";
    legend.appendChild(h("span", "meta", g.nodes.length + " nodes, " + g.edges.length + " edges, " + what + " · v" +
      sh.version + (sh.at_version ? " (at " + sh.at_version + ")" : "") + " · " + headerTokens(sh) + " tokens" +
      (ms !== undefined ? " · drawn in " + ms.toFixed(1) + " ms" : "")));
  }

  // value shows a property's value: a list as a list, text as text.
  function value(v) {
    if (Array.isArray(v)) return h("ul", "", null, v.map(function (x) { return h("li", "", null, [value(x)]); }));
    if (typeof v === "string") return document.createTextNode(v);
    return document.createTextNode(literal(v));
  }

  function closePanel() {
    $("panel").hidden = true;
    if (cur) { cur.selected = null; Graph.select(cur.view, null); }
  }

  // selectNode shows node nd in the panel: all its properties, its edges
  // in the drawing by type, and its history.
  function selectNode(nd) {
    if (!cur) return;
    cur.selected = nd;
    Graph.select(cur.view, nd);
    $("panel").hidden = false;
    var head = clear($("panel-head")), name = GQL.name(nd);
    head.setAttribute("data-panel-node", name);
    head.appendChild(h("h3", "", null, [Graph.swatch(nd.kind), document.createTextNode(name)]));
    var facts = [":" + [nd.kind].concat(nd.labels).join(":")];
    if (nd.hop !== undefined) facts.push(nd.hop === 0 ? (nd.seed && cur.view.opts.ring ? "a matched seed" : "hop 0") : nd.hop + (nd.hop === 1 ? " hop" : " hops") + " from a seed");
    if (nd.trimmed) facts.push("the text shows its identity only");
    else if (nd.brief) facts.push("the text shows it in brief");
    if (nd.more) facts.push(nd.more + " neighbours not drawn (F)");
    head.appendChild(h("div", "meta", facts.join(" · ")));
    var body = clear($("panel-body")), props = (nd.row && nd.row.props) || {};
    var keys = Object.keys(props).sort();
    body.appendChild(h("h4", "", "Properties"));
    if (!keys.length) body.appendChild(h("p", "hint", "None."));
    else body.appendChild(h("table", "", null, keys.map(function (k) {
      return h("tr", "", null, [h("td", "k", k), h("td", "v", null, [value(props[k])])]);
    })));
    body.appendChild(h("h4", "", "Edges in the drawing"));
    var groups = {}, order = [];
    cur.g.edges.forEach(function (e) {
      var dir = e.from === nd.v ? "→" : e.to === nd.v ? "←" : "";
      if (!dir) return;
      var k = dir + " :" + e.type;
      if (!groups[k]) { groups[k] = []; order.push(k); }
      groups[k].push(dir === "→" ? e.to : e.from);
    });
    if (!order.length) body.appendChild(h("p", "hint", "None drawn."));
    var byV = {};
    cur.view.nodes.forEach(function (x) { byV[x.v] = x; });
    order.sort().forEach(function (k) {
      body.appendChild(h("div", "group", null, [h("b", "", k + " (" + groups[k].length + ") ")].concat(groups[k].map(function (v) {
        var far = byV[v], b = h("button", "far", far ? GQL.name(far) : v);
        b.type = "button";
        if (far && !far.ghost) b.addEventListener("click", function () { selectNode(far); });
        return b;
      }))));
    });
    if (nd.more) body.appendChild(h("p", "hint", nd.more + " more neighbours are not drawn: Expand shows them."));
    body.appendChild(h("h4", "", "History"));
    var hist = h("ol", "history", null, []);
    body.appendChild(hist);
    var nick = props.nick;
    if (typeof nick !== "string") { hist.appendChild(h("li", "hint", "A node's history is kept by its nick; this one has none.")); return; }
    hist.appendChild(h("li", "hint", "Reading…"));
    var session = state.session;
    api(path(session, "/history?nick=" + encodeURIComponent(nick) + "&limit=20")).then(function (d) {
      if (!cur || cur.selected !== nd || session !== state.session) return;
      clear(hist);
      d.entries.forEach(function (e) {
        var c = e.change || {}, parts = [];
        if (c.nodes_created) parts.push("+" + c.nodes_created + " node" + (c.nodes_created > 1 ? "s" : ""));
        if (c.nodes_deleted) parts.push("−" + c.nodes_deleted + " node" + (c.nodes_deleted > 1 ? "s" : ""));
        if (c.nodes_changed) parts.push(c.nodes_changed + " changed");
        if (c.edges_created) parts.push("+" + c.edges_created + " edge" + (c.edges_created > 1 ? "s" : ""));
        if (c.edges_deleted) parts.push("−" + c.edges_deleted + " edge" + (c.edges_deleted > 1 ? "s" : ""));
        var li = h("li", "", "v" + e.version + " " + e.how + (e.agent ? " by " + e.agent : "") + (e.time ? " · " + when(e.time) : "") +
          (parts.length ? ": " + parts.join(", ") : ""));
        li.setAttribute("data-history", e.version);
        hist.appendChild(li);
      });
      if (d.more) hist.appendChild(h("li", "hint", "older changes not listed"));
    }, function (err) { clear(hist).appendChild(h("li", "bad", failure(err))); });
  }

  // ident writes a label or key as GQL takes it.
  function ident(s) { return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? s : "`" + s.replace(/`/g, "``") + "`"; }

  // expand asks for a Recall seeded on node nd, one hop, every neighbour
  // the ceilings allow, and merges its answer into the drawing: the nodes
  // drawn keep their places, the new ones start around nd.
  function expand(nd) {
    if (!cur) return;
    var props = (nd.row && nd.row.props) || {}, keys = identityKeys(props);
    if (!keys.length) keys = Object.keys(props).filter(function (k) { return typeof props[k] === "string" || typeof props[k] === "number"; }).sort();
    var params = {}, pats = keys.slice(0, keys[0] === "nick" || keys[0] === "loc" ? 1 : keys.length).map(function (k, i) {
      params["p" + i] = props[k];
      return ident(k) + ": $p" + i;
    });
    if (!pats.length) {
      status("Nothing tells " + GQL.name(nd) + " apart to seed a Recall on (no nick, loc, name, title or plain value).", true);
      return;
    }
    var q = "MATCH (n" + (nd.kind ? ":" + ident(nd.kind) : "") + " {" + pats.join(", ") + "})";
    var body = { q: q, params: params, options: { rows: true, k: 1, F: 64, M: 200, L: 1 } };
    if ($("agent").value.trim()) body.agent = $("agent").value.trim();
    if (state.at) body.at_version = Number(state.at);
    var was = cur;
    status("Expanding " + GQL.name(nd) + "…");
    api(path(state.session, "/recall"), body).then(function (sh) {
      if (cur !== was) return;
      status("");
      var add = shapeGraph(sh), byKey = {}, taken = {}, rename = {}, added = 0;
      cur.g.nodes.forEach(function (x) { byKey[nodeKey(x)] = x; taken[x.v] = true; });
      add.nodes.forEach(function (x) {
        var k = nodeKey(x), old = byKey[k];
        if (old) {
          rename[x.v] = old.v;
          if (old === nd || k === nodeKey(nd)) old.more = x.more;
          return;
        }
        var v = x.v;
        while (taken[v]) v += "_";
        taken[v] = true; rename[x.v] = v;
        x.v = v; x.seed = false; x.faded = false; x.hop = undefined;
        cur.g.nodes.push(x); byKey[k] = x; added++;
      });
      var have = {};
      cur.g.edges.forEach(function (e) { have[e.from + "|" + e.type + "|" + e.to] = true; });
      add.edges.forEach(function (e) {
        var from = rename[e.from], to = rename[e.to], k = from + "|" + e.type + "|" + to;
        if (have[k]) return;
        have[k] = true;
        cur.g.edges.push({ from: from, to: to, type: e.type, props: e.props, how: "insert" });
      });
      var keep = Graph.places(cur.view, nodeKey), t0 = performance.now();
      var key = nodeKey(nd);
      cur.view = Graph.draw($("graph"), cur.g, { ring: cur.view.opts.ring, key: nodeKey, keep: keep, near: key, onSelect: selectNode, onExpand: expand });
      window.goldfishExpanded = { node: GQL.name(nd), added: added, ms: performance.now() - t0 };
      cur.expanded = true;
      drawLegend();
      var again = cur.view.nodes.filter(function (x) { return nodeKey(x) === key; })[0];
      if (again) selectNode(again);
    }, function (err) { status(failure(err), true); });
  }

  // drawAttention shows the envelope: broken views in red, stale
  // actions, contested targets, what changed since the last read.
  // A miss comes first: what did not match, the close names, and what
  // is drawn instead of a match.
  function drawAttention(a, miss) {
    var box = clear($("attention"));
    function section(title, items, cls) {
      if (!items || !items.length) return;
      box.appendChild(h("h4", cls, title));
      box.appendChild(h("ul", cls, null, items.map(function (i) { return h("li", "", i); })));
    }
    if (miss) {
      var instead = { task: "The live tasks are drawn instead of a match.", peak: "The most connected nodes are drawn instead of a match.",
        skip: "Nothing is drawn." }[miss.instead] || "";
      section("No match", (miss.unmatched || []).concat(miss.did_you_mean && miss.did_you_mean.length ?
        ["did you mean " + miss.did_you_mean.join(" or ") + "?"] : []).concat(instead ? [instead] : []), "bad");
    }
    if (!a) { if (!box.firstChild) box.appendChild(h("p", "hint", "Nothing to say.")); return; }
    if (a.note) box.appendChild(h("p", "", a.note));
    section("Broken views", (a.broken_views || []).map(function (b) { return b.name + (b.error ? ": " + b.error : ""); }), "bad");
    section("Stale actions", a.stale_actions, "warn");
    section("Contested", (a.contested || []).map(function (c) { return c.target + " ← " + c.actions.join(", "); }), "warn");
    if (a.since_your_last_read) {
      var s = a.since_your_last_read;
      section("Since your last read", [s.versions + " versions, " + s.elements_changed + " elements changed"].concat(s.diff ? [s.diff] : []), "");
    }
    section("You elided", a.you_elided, "");
    if (a.vocabulary_health) section("Vocabulary health", [a.vocabulary_health], "");
    section("Vocabulary gaps", (a.vocabulary_gaps || []).map(function (g) { return JSON.stringify(g); }), "warn");
    if (!box.firstChild) box.appendChild(h("p", "hint", "Nothing to say."));
  }

  function loadVocabulary() {
    var name = state.session;
    return api(path(name, "/vocabulary")).then(function (v) {
      if (name !== state.session) return;
      var box = clear($("vocabulary"));
      if (!v.views.length && !v.actions.length) box.appendChild(h("p", "hint", "No views or actions."));
      v.views.forEach(function (w) {
        box.appendChild(h("div", w.error ? "view bad" : "view", null, [h("b", "", "view " + w.name), h("span", "", " = " + (w.error ? "broken: " + w.error : w.text)),
          w.intent ? h("div", "meta", w.intent) : null]));
      });
      v.actions.forEach(function (x) {
        box.appendChild(h("div", "action", null, [h("b", "", "action " + x.name + "(" + x.signature + ")"),
          h("div", "meta", (x.intent || "") + " · called " + x.invocations + "×" + (x.failed_calls ? ", " + x.failed_calls + " failed" : "") +
            (x.last_invoked ? ", last at v" + x.last_invoked : ""))]));
      });
    }, function (err) { clear($("vocabulary")).appendChild(h("p", "bad", failure(err))); });
  }

  // The timeline: click a version to Recall at it, tick two for a diff.
  function loadVersions() {
    var name = state.session;
    return api(path(name, "/versions?limit=100")).then(function (d) {
      if (name !== state.session) return;
      var ol = clear($("versions"));
      if (!d.versions.length) ol.appendChild(h("li", "hint", "No Commit yet."));
      d.versions.forEach(function (v) {
        var box = h("input"); box.type = "checkbox"; box.value = v.version;
        box.checked = (state.diff || "").split(",").indexOf(String(v.version)) >= 0;
        box.addEventListener("change", pickDiff);
        var a = h("a", "", "v" + v.version);
        a.href = "#" + new URLSearchParams({ session: name, q: state.q || "", at: v.version }).toString();
        var li = h("li", String(v.version) === state.at ? "current" : "", null, [box, a,
          h("span", "meta", " " + v.how + (v.agent ? " by " + v.agent : "") + (v.time ? " · " + when(v.time) : "")),
          v.change ? h("div", "change", v.change) : null]);
        li.setAttribute("data-version", v.version);
        ol.appendChild(li);
      });
      if (d.more) ol.appendChild(h("li", "hint", "older versions from " + d.oldest + " not listed"));
    }, function (err) { clear($("versions")).appendChild(h("li", "bad", failure(err))); });
  }
  function pickDiff() {
    var ticked = Array.prototype.filter.call(document.querySelectorAll("#versions input:checked"), function (b) { return true; })
      .map(function (b) { return Number(b.value); }).sort(function (a, b) { return a - b; });
    var s = readHash();
    if (ticked.length === 2) { s.diff = ticked.join(","); writeHash(s); }
    else if (s.diff) { delete s.diff; writeHash(s); }
  }
  function showDiff() {
    var box = $("diff");
    if (!state.diff) { box.hidden = true; return; }
    var ft = state.diff.split(",");
    api(path(state.session, "/diff?from=" + encodeURIComponent(ft[0]) + "&to=" + encodeURIComponent(ft[1]))).then(function (d) {
      box.hidden = false;
      $("diff-title").textContent = "Diff v" + d.from + " → v" + d.to + ": +" + d.nodes_created + " −" + d.nodes_deleted + " ~" + d.nodes_changed +
        " nodes, +" + d.edges_created + " −" + d.edges_deleted + " edges";
      $("diff-gql").textContent = d.diff;
      Graph.draw($("diff-graph"), GQL.parse(d.diff), { diff: true });
    }, function (err) {
      box.hidden = false;
      $("diff-title").textContent = "Diff: " + failure(err);
      clear($("diff-graph")); $("diff-gql").textContent = "";
    });
  }

  // Live: while the tab is visible, ask for the session's version every
  // 2 s; a new version redraws. A server that does not answer is asked
  // again less and less often (at most every 30 s).
  function schedule() {
    clearTimeout(poll.timer);
    if (!state.session) return;
    var wait = poll.failures ? Math.min(30000, 2000 * Math.pow(2, poll.failures)) : 2000;
    poll.timer = setTimeout(tick, wait);
  }
  function tick() {
    if (document.visibilityState !== "visible" || !$("login").hidden) { schedule(); return; }
    api(path(state.session)).then(function (s) {
      if (poll.failures) status("");
      poll.failures = 0;
      if (s.version !== shown.version) {
        shown.version = s.version;
        var grown = !state.at && cur && cur.expanded, v = s.version;
        loadInfo().then(function () {
          // A drawing the reader grew by expanding is not replaced under
          // them: the page says a newer version is in (after loadInfo,
          // which clears the status).
          if (grown && cur && cur.expanded) status("Version " + v + " is in: Recall to redraw (your expansions go).");
        });
        if (!state.at && !grown) recall();
        loadVocabulary(); loadVersions(); loadSessions();
      }
      schedule();
    }, function (err) {
      poll.failures++;
      if (err.offline) offline(); else status(failure(err), true);
      schedule();
    });
  }
  function offline() { status("The server does not answer; trying again in a while.", true); }

  $("fit").addEventListener("click", function () { if (cur) Graph.fit(cur.view); });
  $("zoom-in").addEventListener("click", function () { if (cur) Graph.zoom(cur.view, 1.25); });
  $("zoom-out").addEventListener("click", function () { if (cur) Graph.zoom(cur.view, 0.8); });
  $("expand").addEventListener("click", function () { if (cur && cur.selected) expand(cur.selected); });
  $("panel-close").addEventListener("click", closePanel);
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && !$("panel").hidden) closePanel(); });

  $("recall").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var s = readHash();
    s.q = $("q").value.trim();
    s.at = $("at").value.trim();
    if (s.q === state.q && s.at === (state.at || "")) { recall(); return; }
    writeHash(s);
  });
  window.addEventListener("hashchange", render);
  document.addEventListener("visibilitychange", function () { if (document.visibilityState === "visible") schedule(); });
  render();
})();
