// gql.js reads the GQL a diff is written in into nodes and edges,
// enough to draw them (a Shape is drawn from its rows, app.js's
// shapeGraph): node patterns (var:KIND:Label {props}),
// edge patterns -[var:TYPE {props}]-> and <-[…]-, and the clauses MATCH,
// INSERT, SET, REMOVE and DELETE. A value is kept as its source text
// (and, for a string, as the string) so the page shows what the Shape
// says. It never evaluates anything.
"use strict";

var GQL = (function () {
  // tokens splits text into words, strings, numbers and punctuation,
  // dropping // comments (returned apart, for the header).
  function tokens(text) {
    var out = [], comments = [], i = 0, n = text.length;
    while (i < n) {
      var c = text[i];
      if (/\s/.test(c)) { i++; continue; }
      if (c === "/" && text[i + 1] === "/") {
        var e = text.indexOf("\n", i);
        if (e < 0) e = n;
        comments.push(text.slice(i + 2, e).trim());
        i = e;
        continue;
      }
      if (c === '"' || c === "'") {
        var j = i + 1, s = "";
        while (j < n && text[j] !== c) {
          if (text[j] === "\\" && j + 1 < n) {
            var x = text[j + 1];
            s += x === "n" ? "\n" : x === "t" ? "\t" : x;
            j += 2;
          } else s += text[j++];
        }
        out.push({ t: "str", v: s, src: text.slice(i, j + 1) });
        i = j + 1;
        continue;
      }
      if (text.startsWith("->", i) || text.startsWith("<-", i)) { out.push({ t: "p", v: text.substr(i, 2) }); i += 2; continue; }
      var m = /^[A-Za-z_$][A-Za-z0-9_$]*|^-?[0-9][0-9.eE+-]*|^`[^`]*`/.exec(text.slice(i, i + 200));
      if (m) {
        var w = m[0];
        out.push({ t: /^[-0-9]/.test(w) ? "num" : "word", v: w.replace(/`/g, ""), src: w });
        i += w.length;
        continue;
      }
      out.push({ t: "p", v: c });
      i++;
    }
    return { toks: out, comments: comments };
  }

  var CLAUSES = { MATCH: 1, INSERT: 1, SET: 1, REMOVE: 1, DELETE: 1, DETACH: 1, WHERE: 1, LIMIT: 1, FILTER: 1, CALL: 1, OPTIONAL: 1, NODETACH: 1 };

  // parse returns {header, comments, nodes, edges}: nodes in the order
  // the text first writes them, each {v, kind, labels, props, how, n},
  // and edges {from, to, type, props, how}. how is "insert" for what an
  // INSERT writes, "set" for what a SET changes, "delete" for what a
  // DELETE removes, "match" for what is only found.
  function parse(text) {
    var tk = tokens(text), toks = tk.toks, p = 0;
    var nodes = [], byVar = {}, edges = [], edgeVar = {}, anon = 0;
    var header = parseHeader(tk.comments);
    function peek(k) { return toks[p + (k || 0)]; }
    function is(v, k) { var t = peek(k); return t && t.v === v; }
    function word() { var t = peek(); return t && t.t === "word" ? t.v.toUpperCase() : ""; }

    // value skips one value, balanced, and returns its source text.
    function value() {
      var depth = 0, src = [], str = null;
      while (p < toks.length) {
        var t = toks[p];
        if (depth === 0 && (t.v === "," || t.v === "}" )) break;
        if (t.v === "[" || t.v === "{" || t.v === "(") depth++;
        if (t.v === "]" || t.v === "}" || t.v === ")") depth--;
        if (t.t === "str" && src.length === 0) str = t.v;
        src.push(t.src || t.v);
        p++;
      }
      return { src: src.join(" "), str: src.length === 1 ? str : null };
    }
    function props() {
      var out = [];
      if (!is("{")) return out;
      p++;
      while (p < toks.length && !is("}")) {
        var key = peek().v; p++;
        if (is(":")) p++;
        var val = value();
        out.push({ k: key, src: val.src, str: val.str });
        if (is(",")) p++;
      }
      p++;
      return out;
    }
    function node(how) {
      p++; // (
      var v = "", labels = [];
      if (peek() && peek().t === "word") { v = peek().v; p++; }
      while (is(":") || is("&")) { p++; if (peek()) { labels.push(peek().v); p++; } }
      var pr = props();
      while (p < toks.length && !is(")")) p++; // a WHERE inside the pattern
      p++;
      if (!v) v = "_anon" + (++anon);
      var nd = byVar[v];
      if (!nd) {
        nd = { v: v, kind: "", labels: [], props: [], how: how, n: nodes.length };
        byVar[v] = nd;
        nodes.push(nd);
      }
      if (labels.length && !nd.kind) { nd.kind = labels[0]; nd.labels = labels.slice(1); }
      if (pr.length && !nd.props.length) nd.props = pr;
      if (how === "insert" && (labels.length || pr.length)) nd.how = "insert";
      return nd;
    }
    function edge() {
      // -[v:TYPE {props}]-> or <-[…]-; p is at "-" or "<-".
      var left = is("<-");
      p++;
      var v = "", type = "", pr = [];
      if (is("[")) {
        p++;
        if (peek() && peek().t === "word") { v = peek().v; p++; }
        if (is(":")) { p++; type = peek() ? peek().v : ""; p++; }
        pr = props();
        while (p < toks.length && !is("]")) p++;
        p++;
      }
      var right = is("->");
      p++;
      return { v: v, type: type, props: pr, left: left && !right };
    }
    function pattern(how) {
      var a = node(how);
      while (is("-") || is("<-")) {
        var e = edge();
        if (!is("(")) break;
        var b = node(how);
        var ed = { from: e.left ? b.v : a.v, to: e.left ? a.v : b.v, type: e.type, props: e.props, how: how };
        edges.push(ed);
        if (e.v) edgeVar[e.v] = ed;
        a = b;
      }
    }
    function patterns(how) {
      while (is("(")) {
        pattern(how);
        if (is(",") && is("(", 1)) p++; else break;
      }
    }
    function target(how) {
      // SET a.k = v, a:Label, a = {…}; REMOVE a.k; DELETE a, e.
      var t = peek();
      if (t && t.t === "word") {
        if (byVar[t.v] && byVar[t.v].how !== "insert") byVar[t.v].how = how;
        if (edgeVar[t.v] && edgeVar[t.v].how !== "insert") edgeVar[t.v].how = how;
      }
    }
    while (p < toks.length) {
      var w = word();
      if (w === "INSERT") { p++; patterns("insert"); continue; }
      if (w === "MATCH") { p++; patterns("match"); continue; }
      if (w === "SET" || w === "REMOVE") {
        p++;
        while (p < toks.length && !CLAUSES[word()] && !is(";")) {
          target("set");
          p++;
          while (p < toks.length && !is(",") && !is(";") && !CLAUSES[word()]) {
            if (is("{")) props(); else p++;
          }
          if (is(",")) p++;
        }
        continue;
      }
      if (w === "DELETE") {
        p++;
        while (p < toks.length && peek().t === "word" && !CLAUSES[word()]) {
          target("delete");
          p++;
          if (is(",")) p++; else break;
        }
        continue;
      }
      p++;
    }
    // A variable the text only refers to (no kind, no property) is a
    // node outside it: the edges keep it, the drawing shows a ghost.
    nodes = nodes.filter(function (nd) { return nd.kind || nd.props.length; });
    nodes.forEach(function (nd, i) { nd.n = i; });
    return { header: header, comments: tk.comments, nodes: nodes, edges: edges };
  }

  // parseHeader reads "goldfish session=… version=… seeds=N …".
  function parseHeader(comments) {
    var h = {};
    comments.forEach(function (c) {
      if (!/^goldfish /.test(c)) return;
      c.split(/\s+/).forEach(function (kv) {
        var i = kv.indexOf("=");
        if (i > 0) h[kv.slice(0, i)] = kv.slice(i + 1);
      });
    });
    return h;
  }

  // name is what a node is known by: its nick, else its loc, else its
  // variable.
  function name(nd) {
    var by = {};
    nd.props.forEach(function (pr) { by[pr.k] = pr; });
    if (by.nick && by.nick.str !== null) return by.nick.str;
    if (by.loc && by.loc.str !== null) return by.loc.str;
    return nd.v;
  }

  return { parse: parse, name: name, tokens: tokens };
})();
