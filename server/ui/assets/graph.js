// graph.js lays out and draws a Shape's rows (app.js's shapeGraph) or a
// parsed diff (GQL.parse) as SVG, and lets the reader pan, zoom, drag a
// node, click one (opts.onSelect) and double-click one (opts.onExpand).
//
// The layout is deterministic: nodes start on a spiral in the order the
// Shape lists them, a force simulation spreads them (they repel, edges
// pull their ends together, a gravity keeps the whole together), then
// every node's box (its mark and its label, measured in the page) is
// pushed off every other until no two overlap. An edge's type is
// written on it only where it overlaps no other label; it is always in
// the edge's tooltip and in the node panel. Every label goes in as text
// (textContent), never as markup.
"use strict";

var Graph = (function () {
  var NS = "http://www.w3.org/2000/svg";
  // PALETTE are colours told apart at a glance (Tableau 10 and two
  // more); past them, a kind takes the next shape.
  var PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac", "#17becf", "#8c564b"];
  var SHAPES = ["circle", "square", "diamond", "triangle", "hexagon"];
  var HOW = { insert: "#2e9d46", set: "#e0a800", delete: "#d63b3b" };
  var R = 9; // a mark's radius
  var LX = R + 8; // where a label starts, clear of a seed's ring
  var LABEL_MAX = 28; // characters of a label; the tooltip has all

  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // Styles gives each kind a colour and a shape of its own, in the order
  // the kinds are first named (app.js names a session's kinds, sorted,
  // before it draws, so a kind keeps its style across the session).
  function Styles() { this.reset(); }
  Styles.prototype.reset = function () { this.by = {}; this.n = 0; };
  Styles.prototype.of = function (kind) {
    if (!kind) return { colour: "#999", shape: "circle" };
    var s = this.by[kind];
    if (!s) {
      var i = this.n++;
      s = this.by[kind] = { colour: PALETTE[i % PALETTE.length], shape: SHAPES[Math.floor(i / PALETTE.length) % SHAPES.length] };
    }
    return s;
  };
  var styles = new Styles();

  // mark draws a kind's shape of radius r at the origin of parent.
  function mark(shape, r, attrs, parent) {
    var pts;
    switch (shape) {
      case "square": attrs.x = -r * 0.85; attrs.y = -r * 0.85; attrs.width = attrs.height = r * 1.7; return el("rect", attrs, parent);
      case "diamond": pts = [[0, -r * 1.15], [r * 1.15, 0], [0, r * 1.15], [-r * 1.15, 0]]; break;
      case "triangle": pts = [[0, -r * 1.15], [r, r * 0.8], [-r, r * 0.8]]; break;
      case "hexagon": pts = [0, 1, 2, 3, 4, 5].map(function (i) { var a = Math.PI / 3 * i; return [r * Math.cos(a), r * Math.sin(a)]; }); break;
      default: attrs.r = r; return el("circle", attrs, parent);
    }
    attrs.points = pts.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" ");
    return el("polygon", attrs, parent);
  }

  // swatch is a small SVG of a kind's mark, for the legend and the panel.
  function swatch(kind) {
    var s = styles.of(kind), svg = el("svg", { width: 14, height: 14, viewBox: "-8 -8 16 16", "class": "swatch" });
    mark(s.shape, 6, { fill: s.colour, stroke: "#444", "stroke-width": 1 }, svg);
    return svg;
  }

  function short(text) { return text.length > LABEL_MAX ? text.slice(0, LABEL_MAX - 1) + "…" : text; }

  // box is the part of the plane node nd's mark and label take, padded.
  function box(nd, pad) {
    var rr = nd.ringed ? R + 6 : R, hh = Math.max(rr, nd.lh / 2) + pad;
    return { l: nd.x - rr - pad, r: nd.x + LX + nd.lw + pad, t: nd.y - hh, b: nd.y + hh };
  }
  function overlap(a, b) {
    return a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
  }

  // spread runs the force simulation, cooler when warm (the nodes are
  // placed already).
  function spread(nodes, links, warm, aspect) {
    var n = nodes.length;
    if (n < 2) return;
    // k, the distance the forces settle at, is what a node's box needs.
    var area = 0;
    nodes.forEach(function (nd) { var b = box(nd, 3); area += (b.r - b.l) * (b.b - b.t); });
    var k = Math.max(30, Math.min(90, Math.sqrt(area / n) * 1.1)), steps = warm ? 100 : n > 150 ? 150 : 300, heat = warm ? 6 : 30;
    for (var s = 0; s < steps; s++) {
      var t = 1 - s / steps, dx = new Float64Array(n), dy = new Float64Array(n);
      for (var i = 0; i < n; i++) {
        var a = nodes[i];
        for (var j = i + 1; j < n; j++) {
          var b = nodes[j], x = a.x - b.x, y = a.y - b.y, d2 = x * x + y * y + 0.01;
          var f = (k * k) / d2;
          dx[i] += x * f; dy[i] += y * f; dx[j] -= x * f; dy[j] -= y * f;
        }
      }
      for (var l = 0; l < links.length; l++) {
        var p = links[l][0], q = links[l][1], u = nodes[p], v = nodes[q];
        var ex = u.x - v.x, ey = u.y - v.y, d = Math.sqrt(ex * ex + ey * ey) + 0.01, g = d / k;
        dx[p] -= ex * g; dy[p] -= ey * g; dx[q] += ex * g; dy[q] += ey * g;
      }
      for (var m = 0; m < n; m++) {
        var nd = nodes[m];
        dx[m] -= nd.x * 2 / aspect; dy[m] -= nd.y * 2; // gravity: the whole settles in about n·k² of area, as wide as the drawing
        var len = Math.sqrt(dx[m] * dx[m] + dy[m] * dy[m]) + 0.01, step = Math.min(len, heat * t + 1);
        nd.x += (dx[m] / len) * step;
        nd.y += (dy[m] / len) * step;
      }
    }
  }

  // separate pushes the nodes' boxes apart until none overlaps another:
  // along the axis of the smaller overlap, half each; what is left after
  // a while is placed by a sweep that only moves a node down, which
  // always ends.
  function separate(nodes) {
    var n = nodes.length, pad = 3;
    // The pushes cost n²/2 tests a round: a big drawing gets fewer rounds
    // and leaves more to the sweep.
    var rounds = Math.max(20, Math.min(300, Math.floor(4e6 / (n * n + 1))));
    var bs = nodes.map(function (nd) { return box(nd, pad); });
    for (var it = 0; it < rounds; it++) {
      var moved = false;
      for (var i = 0; i < n; i++) {
        for (var j = i + 1; j < n; j++) {
          var a = bs[i], b = bs[j];
          if (!overlap(a, b)) continue;
          moved = true;
          var ox = Math.min(a.r, b.r) - Math.max(a.l, b.l), oy = Math.min(a.b, b.b) - Math.max(a.t, b.t);
          var ci = nodes[i], cj = nodes[j];
          if (ox < oy) {
            var sx = a.l + a.r <= b.l + b.r ? -1 : 1;
            ci.x += sx * (ox / 2 + 0.5); cj.x -= sx * (ox / 2 + 0.5);
          } else {
            var sy = a.t + a.b <= b.t + b.b ? -1 : 1;
            ci.y += sy * (oy / 2 + 0.5); cj.y -= sy * (oy / 2 + 0.5);
          }
          bs[i] = box(ci, pad); bs[j] = box(cj, pad);
        }
      }
      if (!moved) return;
    }
    var placed = [];
    nodes.slice().sort(function (p, q) { return p.y - q.y || p.x - q.x; }).forEach(function (nd) {
      for (var again = true; again;) {
        again = false;
        for (var i = 0; i < placed.length; i++) {
          var a = box(nd, pad), b = placed[i];
          if (overlap(a, b)) { nd.y += b.b - a.t + 0.5; again = true; }
        }
      }
      placed.push(box(nd, pad));
    });
  }

  // draw fills svg with the graph g ({nodes, edges}) and returns its view.
  // A node's seed rings it when opts.ring says seeds mean a match; nd.faded
  // draws it as not an answer; nd.trimmed dashes its outline; nd.more is
  // the neighbours a clamp left out (written "+N" on its label);
  // opts.diff colours by what a diff does. An edge to a variable the text
  // never wrote as a node goes to a dashed ghost (data-ghost, not
  // data-node). opts.keep maps node keys to places to keep (an expand).
  function draw(svg, g, opts) {
    opts = opts || {};
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var nodes = g.nodes.slice(), known = {};
    nodes.forEach(function (nd) { known[nd.v] = true; });
    g.edges.forEach(function (e) {
      [e.from, e.to].forEach(function (v) {
        if (!known[v]) { known[v] = true; nodes.push({ v: v, kind: "", labels: [], props: [], how: "match", ghost: true }); }
      });
    });
    var at = {};
    nodes.forEach(function (nd) { at[nd.v] = nd; });

    var defs = el("defs", {}, svg);
    var mk = el("marker", { id: svg.id + "-arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#888" }, mk);
    var world = el("g", { "class": "world" }, svg);
    var edgeLayer = el("g", { "class": "edges" }, world);
    var nodeLayer = el("g", { "class": "nodes" }, world);

    // The nodes first, their labels measured in the page, then placed.
    nodes.forEach(function (nd) {
      var name = GQL.name(nd), st = styles.of(nd.kind);
      var attrs = { "class": "node" + (nd.faded ? " faded" : "") + (nd.trimmed ? " trimmed" : "") };
      attrs[nd.ghost ? "data-ghost" : "data-node"] = name;
      if (nd.kind) attrs["data-kind"] = nd.kind;
      var ringed = !nd.ghost && !!nd.seed && !!opts.ring;
      if (ringed) attrs["data-seed"] = "";
      nd.ringed = ringed;
      if (nd.more) attrs["data-more"] = nd.more;
      if (opts.diff) attrs["data-how"] = nd.how;
      var gn = el("g", attrs, nodeLayer);
      var stroke = opts.diff && HOW[nd.how] ? HOW[nd.how] : "#444";
      if (ringed) el("circle", { r: R + 5, fill: "none", stroke: "#1b4f9c", "stroke-width": 2.5, "class": "ring" }, gn);
      mark(nd.ghost ? "circle" : st.shape, R, { fill: nd.ghost ? "#fff" : st.colour, stroke: stroke,
        "stroke-width": opts.diff && HOW[nd.how] ? 3 : 1, "stroke-dasharray": nd.ghost || nd.trimmed ? "3,2" : "none" }, gn);
      var t = el("text", { x: LX, y: 4, "class": "node-label" }, gn);
      t.textContent = short(name) + (nd.more ? " (+" + nd.more + ")" : "");
      var tip = el("title", {}, gn);
      tip.textContent = (nd.ghost ? "outside this text: " : "") + "(" + nd.v + (nd.kind ? ":" + [nd.kind].concat(nd.labels).join(":") : "") + ") " +
        nd.props.map(function (p) { return p.k + ": " + p.src; }).join(", ") +
        (nd.more ? "\n" + nd.more + " more neighbours left out by the fan-out clamp F: double-click to expand" : "") +
        (nd.trimmed ? "\nthe text shows its identity only: click for all its properties" : "");
      nd.el = gn; nd.label = t;
    });
    nodes.forEach(function (nd) { // one reflow for all the labels
      var b = nd.label.getBBox();
      nd.lw = b.width; nd.lh = Math.max(b.height, 12);
    });
    // A drawing that grows (an expand) starts from where its nodes were,
    // the new ones around the node expanded, and settles from there with
    // less heat: the picture stays the one the reader knows.
    var keep = opts.keep || {}, warm = false, around = opts.near && keep[opts.near];
    nodes.forEach(function (nd, i) {
      var k = opts.key ? opts.key(nd) : nd.v, a = i * 2.399963; // the golden angle
      if (keep[k]) { nd.x = keep[k].x; nd.y = keep[k].y; warm = true; return; }
      if (around) { nd.x = around.x + 30 * Math.cos(a); nd.y = around.y + 30 * Math.sin(a); return; }
      var r = 40 * Math.sqrt(i + 0.5);
      nd.x = r * Math.cos(a); nd.y = r * Math.sin(a);
    });
    var idx = {};
    nodes.forEach(function (nd, i) { idx[nd.v] = i; });
    var links = g.edges.map(function (e) { return [idx[e.from], idx[e.to]]; });
    spread(nodes, links, warm, Math.max(1, Math.min(3, (svg.clientWidth || 800) / (svg.clientHeight || 500))));
    separate(nodes);

    var edges = g.edges.map(function (e) {
      var stroke = opts.diff && HOW[e.how] ? HOW[e.how] : "#999";
      var ge = el("g", { "data-edge": e.type, "class": "edge" }, edgeLayer);
      var line = el("line", { stroke: stroke, "stroke-width": opts.diff && HOW[e.how] ? 2.5 : 1.2, "marker-end": "url(#" + svg.id + "-arrow)" }, ge);
      var label = el("text", { "class": "edge-label", "text-anchor": "middle" }, ge);
      label.textContent = e.type;
      el("title", {}, ge).textContent = GQL.name(at[e.from]) + " -[:" + e.type + "]-> " + GQL.name(at[e.to]);
      return { e: e, a: at[e.from], b: at[e.to], line: line, label: label };
    });

    var view = { svg: svg, world: world, nodes: nodes, edges: edges, s: 1, tx: 0, ty: 0, opts: opts };
    nodes.forEach(function (nd) { place(nd); });
    edges.forEach(function (ed) { route(ed); });
    labelEdges(view);
    fit(view);
    listen(view);
    return view;
  }

  function place(nd) { nd.el.setAttribute("transform", "translate(" + nd.x.toFixed(1) + "," + nd.y.toFixed(1) + ")"); }

  // route draws an edge from the rim of one mark to the rim of the other.
  function route(ed) {
    var a = ed.a, b = ed.b, x = b.x - a.x, y = b.y - a.y, d = Math.sqrt(x * x + y * y) || 1;
    var ux = x / d, uy = y / d, ra = R + 2, rb = R + 3;
    ed.line.setAttribute("x1", (a.x + ux * ra).toFixed(1)); ed.line.setAttribute("y1", (a.y + uy * ra).toFixed(1));
    ed.line.setAttribute("x2", (b.x - ux * rb).toFixed(1)); ed.line.setAttribute("y2", (b.y - uy * rb).toFixed(1));
    ed.label.setAttribute("x", ((a.x + b.x) / 2).toFixed(1));
    ed.label.setAttribute("y", ((a.y + b.y) / 2 - 3).toFixed(1));
  }

  // labelEdges shows an edge's type where it overlaps no node's box and no
  // type shown before it, at its middle or a third of the way along; the
  // others are hidden (their tooltip stays).
  function labelEdges(view) {
    var taken = view.nodes.map(function (nd) { return box(nd, 2); });
    view.edges.forEach(function (ed) { ed.label.removeAttribute("display"); });
    var boxes = view.edges.map(function (ed) { return ed.label.getBBox(); }); // one reflow for all
    view.edges.forEach(function (ed, i) {
      // At the middle of the edge, else a third of the way from either end.
      var r = boxes[i], free = null;
      [0.5, 0.33, 0.67].some(function (f) {
        var ox = (ed.b.x - ed.a.x) * (f - 0.5), oy = (ed.b.y - ed.a.y) * (f - 0.5);
        var b = { l: r.x + ox - 2, r: r.x + r.width + ox + 2, t: r.y + oy - 2, b: r.y + r.height + oy + 2 };
        if (taken.some(function (t) { return overlap(t, b); })) return false;
        free = { b: b, ox: ox, oy: oy };
        return true;
      });
      if (!free) { ed.label.setAttribute("display", "none"); return; }
      taken.push(free.b);
      if (free.ox || free.oy) {
        ed.label.setAttribute("x", (Number(ed.label.getAttribute("x")) + free.ox).toFixed(1));
        ed.label.setAttribute("y", (Number(ed.label.getAttribute("y")) + free.oy).toFixed(1));
      }
    });
  }

  function transform(view) {
    view.world.setAttribute("transform", "translate(" + view.tx.toFixed(1) + "," + view.ty.toFixed(1) + ") scale(" + view.s.toFixed(4) + ")");
    view.svg.setAttribute("data-scale", view.s.toFixed(4));
  }

  // fit shows the whole drawing, at most at 1.6 times its size.
  function fit(view) {
    var w = view.svg.clientWidth || 800, h = view.svg.clientHeight || 500;
    if (!view.nodes.length) { view.s = 1; view.tx = w / 2; view.ty = h / 2; transform(view); return; }
    var l = Infinity, r = -Infinity, t = Infinity, b = -Infinity;
    view.nodes.forEach(function (nd) {
      var x = box(nd, 8);
      l = Math.min(l, x.l); r = Math.max(r, x.r); t = Math.min(t, x.t); b = Math.max(b, x.b);
    });
    view.s = Math.min(1.6, w / (r - l), h / (b - t));
    view.tx = w / 2 - view.s * (l + r) / 2;
    view.ty = h / 2 - view.s * (t + b) / 2;
    transform(view);
  }

  // zoom scales the drawing by f about the point (px, py) of the svg.
  function zoom(view, f, px, py) {
    var w = view.svg.clientWidth || 800, h = view.svg.clientHeight || 500;
    if (px === undefined) { px = w / 2; py = h / 2; }
    var s = Math.max(0.05, Math.min(8, view.s * f));
    view.tx = px - (px - view.tx) * (s / view.s);
    view.ty = py - (py - view.ty) * (s / view.s);
    view.s = s;
    transform(view);
  }

  // listen wires the pointer: drag a node, pan the background, wheel to
  // zoom, click a node to select it, double-click to expand it.
  function listen(view) {
    var svg = view.svg, drag = null, last = { nd: null, at: 0 };
    function pt(ev) { var r = svg.getBoundingClientRect(); return { x: ev.clientX - r.left, y: ev.clientY - r.top }; }
    function nodeOf(target) {
      for (var e = target; e && e !== svg; e = e.parentNode) {
        if (e.__node) return e.__node;
      }
      return null;
    }
    view.nodes.forEach(function (nd) { nd.el.__node = nd; });
    svg.onpointerdown = function (ev) {
      if (ev.button !== 0) return;
      var p = pt(ev), nd = nodeOf(ev.target);
      drag = { nd: nd, x: p.x, y: p.y, tx: view.tx, ty: view.ty, nx: nd ? nd.x : 0, ny: nd ? nd.y : 0, moved: false };
      svg.setPointerCapture(ev.pointerId);
      ev.preventDefault();
    };
    svg.onpointermove = function (ev) {
      if (!drag) return;
      var p = pt(ev), dx = p.x - drag.x, dy = p.y - drag.y;
      if (!drag.moved && dx * dx + dy * dy < 9) return;
      drag.moved = true;
      if (drag.nd) {
        drag.nd.x = drag.nx + dx / view.s; drag.nd.y = drag.ny + dy / view.s;
        place(drag.nd);
        view.edges.forEach(function (ed) { if (ed.a === drag.nd || ed.b === drag.nd) route(ed); });
      } else {
        view.tx = drag.tx + dx; view.ty = drag.ty + dy;
        transform(view);
      }
    };
    svg.onpointerup = function (ev) {
      if (!drag) return;
      var d = drag;
      drag = null;
      if (svg.hasPointerCapture(ev.pointerId)) svg.releasePointerCapture(ev.pointerId);
      if (d.moved && d.nd) { labelEdges(view); svg.setAttribute("data-dragged", d.nd.el.getAttribute("data-node") || ""); }
      if (d.moved || !d.nd || d.nd.ghost) return;
      // A second click on the node soon after the first is a double
      // click (the pointer's capture sends dblclick to the svg itself).
      var now = performance.now(), twice = last.nd === d.nd && now - last.at < 400;
      last = { nd: twice ? null : d.nd, at: now };
      if (twice && view.opts.onExpand) view.opts.onExpand(d.nd, view);
      else if (!twice && view.opts.onSelect) view.opts.onSelect(d.nd, view);
    };
    svg.onwheel = function (ev) {
      ev.preventDefault();
      var p = pt(ev);
      zoom(view, Math.exp(-ev.deltaY * 0.0015), p.x, p.y);
    };
  }

  // select marks node nd (nil: none) as the one the panel shows.
  function select(view, nd) {
    view.nodes.forEach(function (x) { x.el.classList.toggle("selected", x === nd); });
    view.edges.forEach(function (ed) { ed.line.classList.toggle("selected", !!nd && (ed.a === nd || ed.b === nd)); });
  }

  // places maps each node's key to where it is drawn (an expand keeps them).
  function places(view, key) {
    var m = {};
    view.nodes.forEach(function (nd) { if (!nd.ghost) m[key(nd)] = { x: nd.x, y: nd.y }; });
    return m;
  }

  return { draw: draw, fit: fit, zoom: zoom, select: select, places: places, swatch: swatch, styles: styles };
})();
