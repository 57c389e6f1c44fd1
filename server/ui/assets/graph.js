// graph.js lays out and draws a Shape's rows (app.js's shapeGraph) or a
// parsed diff (GQL.parse) as SVG. The
// layout is a small force simulation: nodes start on a spiral in the
// order the Shape lists them (so the same Shape always gives the same
// picture), repel each other, and edges pull their ends together, for a
// fixed number of steps. Every label goes in as text (textContent),
// never as markup.
"use strict";

var Graph = (function () {
  var NS = "http://www.w3.org/2000/svg";

  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // colour gives each kind a hue of its own, from its name.
  function colour(kind) {
    if (!kind) return "#999";
    var h = 0;
    for (var i = 0; i < kind.length; i++) h = (h * 31 + kind.charCodeAt(i)) % 360;
    return "hsl(" + h + ",55%,62%)";
  }
  var HOW = { insert: "#2e9d46", set: "#e0a800", delete: "#d63b3b" };

  // layout sets x and y on each node.
  function layout(nodes, edges, w, h) {
    var n = nodes.length, idx = {};
    nodes.forEach(function (nd, i) {
      var a = i * 2.399963, r = 30 * Math.sqrt(i + 0.5); // the golden angle
      nd.x = w / 2 + r * Math.cos(a);
      nd.y = h / 2 + r * Math.sin(a);
      idx[nd.v] = i;
    });
    var links = [];
    edges.forEach(function (e) {
      if (e.from in idx && e.to in idx) links.push([idx[e.from], idx[e.to]]);
    });
    var steps = n > 150 ? 120 : 300, k = Math.min(110, Math.sqrt((w * h) / Math.max(n, 1)) * 0.5);
    for (var s = 0; s < steps; s++) {
      var t = 1 - s / steps, dx = new Float64Array(n), dy = new Float64Array(n);
      for (var i = 0; i < n; i++) {
        for (var j = i + 1; j < n; j++) {
          var x = nodes[i].x - nodes[j].x, y = nodes[i].y - nodes[j].y, d2 = x * x + y * y + 0.01;
          var f = (k * k) / d2;
          dx[i] += x * f; dy[i] += y * f; dx[j] -= x * f; dy[j] -= y * f;
        }
      }
      links.forEach(function (l) {
        var a = nodes[l[0]], b = nodes[l[1]], x = a.x - b.x, y = a.y - b.y, d = Math.sqrt(x * x + y * y) + 0.01;
        var f = d / k;
        dx[l[0]] -= x * f; dy[l[0]] -= y * f; dx[l[1]] += x * f; dy[l[1]] += y * f;
      });
      for (var i2 = 0; i2 < n; i2++) {
        var nd = nodes[i2];
        dx[i2] += (w / 2 - nd.x) * 0.8; dy[i2] += (h / 2 - nd.y) * 0.8; // gravity, as strong as repulsion at k
        var len = Math.sqrt(dx[i2] * dx[i2] + dy[i2] * dy[i2]) + 0.01, step = Math.min(len, 20 * t + 1);
        nd.x = Math.max(40, Math.min(w - 40, nd.x + (dx[i2] / len) * step));
        nd.y = Math.max(20, Math.min(h - 20, nd.y + (dy[i2] / len) * step));
      }
    }
  }

  // draw fills svg with the graph g ({nodes, edges}); a node's seed marks
  // it a seed (a Shape's rows say which), opts.diff colours by what the diff
  // does. An edge to a variable the text never wrote as a node is drawn
  // to a dashed ghost (data-ghost, not data-node).
  function draw(svg, g, opts) {
    opts = opts || {};
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var w = svg.clientWidth || 800, h = svg.clientHeight || 500;
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    var nodes = g.nodes.slice(), known = {};
    nodes.forEach(function (nd) { known[nd.v] = true; });
    g.edges.forEach(function (e) {
      [e.from, e.to].forEach(function (v) {
        if (!known[v]) { known[v] = true; nodes.push({ v: v, kind: "", labels: [], props: [], how: "match", ghost: true }); }
      });
    });
    layout(nodes, g.edges, w, h);
    var at = {};
    nodes.forEach(function (nd) { at[nd.v] = nd; });

    var defs = el("defs", {}, svg);
    var mk = el("marker", { id: svg.id + "-arrow", viewBox: "0 0 10 10", refX: "22", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#777" }, mk);

    var edgeLayer = el("g", { "class": "edges" }, svg);
    g.edges.forEach(function (e) {
      var a = at[e.from], b = at[e.to];
      var stroke = opts.diff && HOW[e.how] ? HOW[e.how] : "#999";
      var ge = el("g", { "data-edge": e.type }, edgeLayer);
      el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: stroke, "stroke-width": opts.diff && HOW[e.how] ? 2.5 : 1.2, "marker-end": "url(#" + svg.id + "-arrow)" }, ge);
      var label = el("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 3, "class": "edge-label", "text-anchor": "middle" }, ge);
      label.textContent = e.type;
    });

    var nodeLayer = el("g", { "class": "nodes" }, svg);
    nodes.forEach(function (nd) {
      var name = GQL.name(nd);
      var attrs = { transform: "translate(" + nd.x.toFixed(1) + "," + nd.y.toFixed(1) + ")", "class": "node" };
      attrs[nd.ghost ? "data-ghost" : "data-node"] = name;
      if (nd.kind) attrs["data-kind"] = nd.kind;
      var seed = !nd.ghost && !!nd.seed;
      if (seed) attrs["data-seed"] = "";
      if (opts.diff) attrs["data-how"] = nd.how;
      var gn = el("g", attrs, nodeLayer);
      var ring = opts.diff && HOW[nd.how] ? HOW[nd.how] : seed ? "#1b4f9c" : "#555";
      el("circle", { r: seed ? 13 : 10, fill: nd.ghost ? "#fff" : colour(nd.kind), stroke: ring,
        "stroke-width": seed || (opts.diff && HOW[nd.how]) ? 3 : 1, "stroke-dasharray": nd.ghost ? "3,3" : "none" }, gn);
      var t = el("text", { x: 15, y: 4, "class": "node-label" }, gn);
      t.textContent = (nd.kind ? nd.kind + " " : "") + name;
      var tip = el("title", {}, gn);
      tip.textContent = (nd.ghost ? "outside this text: " : "") + "(" + nd.v + (nd.kind ? ":" + [nd.kind].concat(nd.labels).join(":") : "") + ") " +
        nd.props.map(function (p) { return p.k + ": " + p.src; }).join(", ");
    });
    return nodes.length;
  }

  return { draw: draw, colour: colour };
})();
