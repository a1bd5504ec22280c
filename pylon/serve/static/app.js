"use strict";
// pylon board: vanilla JS, no build step, no network but this server. Every text from the
// repository goes into the page through textContent (never innerHTML): file names and articles
// are data, not markup.
(() => {
  // Authentication is the session cookie (HttpOnly: this script never sees it) that the login link
  // exchanged for its one-time token; the token itself never reaches this page's address.
  const CSRF = document.querySelector('meta[name="pylon-csrf"]').content;
  const SVG = "http://www.w3.org/2000/svg";
  const state = { meta: null, open: [], graph: null, stale: new Set(), lint: new Map(), selected: null,
                  loaded: {} };
  window.pylonBoard = { state, marks: {} };

  function h(tag, attrs, ...kids) {
    const el = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "text") el.textContent = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids.flat()) if (kid !== null && kid !== undefined) el.append(kid.nodeType ? kid : String(kid));
    return el;
  }
  const $ = (id) => document.getElementById(id);
  const present = (kids) => kids.flat().filter((k) => k !== null && k !== undefined);
  const fill = (id, ...kids) => { const el = $(id); el.classList.remove("loading"); el.replaceChildren(...present(kids)); return el; };

  async function api(name, params) {
    const qs = new URLSearchParams(params || {}).toString();
    const res = await fetch(`/api/${name}${qs ? "?" + qs : ""}`, { credentials: "same-origin" });
    const doc = await res.json();
    if (!doc.ok) throw new Error(`${doc.error.code}: ${doc.error.message}`);
    return doc;
  }
  async function act(body) {
    const res = await fetch("/api/action", { method: "POST", body: JSON.stringify(body), credentials: "same-origin",
      headers: { "X-Pylon-Csrf": CSRF, "Content-Type": "application/json" } });
    const doc = await res.json();
    toast(doc.ok ? `${body.action}: done${doc.result && doc.result.op ? " (op " + doc.result.op + ")" : ""}`
                 : `${doc.error.code}: ${doc.error.message}`);
    document.body.dataset.lastAction = doc.ok ? "ok" : doc.error.code;
    refresh(["workspace"]);
    return doc;
  }
  function toast(text) {
    const el = $("toast"); el.textContent = text; el.hidden = false;
    clearTimeout(toast.t); toast.t = setTimeout(() => { el.hidden = true; }, 6000);
  }
  const failed = (id) => (e) => fill(id, h("p", { class: "finding error", text: String(e.message || e) }));
  const ago = (s) => s >= 86400 ? `${Math.floor(s / 86400)}d ago` : s >= 3600 ? `${Math.floor(s / 3600)}h ago`
    : s >= 60 ? `${Math.floor(s / 60)}m ago` : `${s}s ago`;
  const actionButton = (label, body, confirmText) => state.meta && state.meta.allow_actions
    ? h("button", { class: "act", "data-action": body.action, text: label, onclick: (ev) => {
        ev.stopPropagation();
        if (!confirmText || confirm(confirmText)) act(body);
      } }) : null;
  const copyButton = (text) => h("button", { text: "copy", title: text, onclick: async (ev) => {
    ev.stopPropagation();
    try { await navigator.clipboard.writeText(text); toast("copied: " + text); } catch (e) { toast(text); }
  } });

  // -- Agents --------------------------------------------------------------------------------
  async function loadAgents() {
    const doc = await api("agents");
    const rows = doc.worktrees;
    const gone = doc.departed || [];
    state.departed = new Set(gone.filter((d) => d.compared).map((d) => d.label));
    const now = Date.now() / 1000;
    fill("worktrees", rows.length === 0 && gone.length === 0 ? h("p", { class: "muted", text: "No owned worktrees (pylon ws new ID makes one)." }) :
      h("table", { id: "worktree-table" },
        h("thead", {}, h("tr", {}, ["id", "branch", "dirty", "commits", "behind", "last change", "overlaps", "watcher", ""]
          .map((t) => h("th", { text: t })))),
        h("tbody", {}, rows.map((w) => h("tr", { class: "clickable" + (state.selected === w.id ? " selected" : ""),
          "data-id": w.id, onclick: () => showDiff(w.id) },
          h("td", {}, h("strong", { text: w.id })), h("td", { class: "mono", text: w.branch }),
          h("td", { text: `${w.dirty.tracked}M ${w.dirty.untracked}?` }),
          h("td", { text: w.commits_since_baseline }), h("td", { text: w.behind_checkout ?? "-" }),
          h("td", { title: w.last_change || "", text: w.last_change ? ago(Math.max(0, Math.round(now - Date.parse(w.last_change) / 1000))) : "-" }),
          h("td", { text: w.overlaps === null ? "?" : (w.overlaps.join(", ") || "-") }),
          h("td", { class: "muted", title: w.watcher ? `ws watch, pid ${w.watcher}` : "no watcher: each read scans it (ws new --watch)",
            text: w.watcher ? "watching" : "-" }),
          h("td", {}, actionButton("apply", { action: "apply", id: w.id }),
            actionButton("sync", { action: "sync", id: w.id }),
            actionButton("rm", { action: "rm", id: w.id }, `Remove worktree ${w.id}? (refused if it holds work)`)))),
          // worktrees that left pylon's ownership: shown as such, never dropped; no action runs on them
          gone.map((d) => h("tr", { class: "departed", "data-departed": d.label, title: d.path },
            h("td", {}, h("strong", { text: d.id || d.path.split("/").pop() }), h("div", { class: "muted", text: "left pylon" })),
            h("td", { class: "mono", text: d.branch || (d.head ? "(detached)" : "-") }),
            h("td", { text: d.dirty ? `${d.dirty.tracked}M ${d.dirty.untracked}?` : "-" }),
            h("td", { colspan: 6, class: "why" }, `${d.why}. `,
              d.compared ? "" : h("span", { class: "muted", text: "Not compared (no worktree of this repository, or no base in common). " }),
              d.resolve ? [h("code", { text: d.resolve }), " ", copyButton(d.resolve)] : null))))));
    document.body.dataset.agents = String(rows.length);
    document.body.dataset.departed = String(gone.length);
    const survey = doc.survey || {};
    fill("survey", !survey.kept ? "" : `(surveyed ${survey.age_ms < 1000 ? "just now" : ago(Math.round(survey.age_ms / 1000))}; nothing changed since)`);
    if (!window.pylonBoard.firstPaint) window.pylonBoard.firstPaint = performance.now();
    if (state.selected && rows.some((w) => w.id === state.selected)) showDiff(state.selected);
    // after the table, not beside it: both scan every worktree, and on two cores the table would wait
    await api("conflicts").then(renderConflicts, (e) => fill("conflicts", h("p", { class: "muted", text: String(e.message) })));
    await loadSessions().catch(failed("sessions"));
  }

  // -- Sessions: the agents' own transcripts (pylon sessions) -------------------------------------
  const short = (n) => n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
  async function loadSessions() {
    const doc = await api("sessions");
    const rows = doc.sessions;
    const live = rows.filter((s) => s.phase !== "done");
    const shown = [...live, ...rows.filter((s) => s.phase === "done").slice(0, 10)];
    const now = Date.now() / 1000;
    const where = (s) => s.worktree || (s.place === "checkout" ? "checkout" : (s.root || "").split("/").pop() || "-");
    fill("sessions", !rows.length ? h("p", { class: "muted", text: "No Claude Code or Codex session in this repository." }) :
      h("table", { id: "session-table" },
        h("thead", {}, h("tr", {}, ["worktree", "client", "session", "phase", "last", "calls", "errors", "retries", "tokens", "cost"]
          .map((t) => h("th", { text: t })))),
        h("tbody", {}, shown.map((s) => h("tr", { "data-session": s.id, "data-phase": s.phase, "data-worktree": where(s) },
          h("td", {}, h("strong", { text: where(s) })), h("td", { text: s.client }),
          h("td", { class: "mono", title: s.id, text: s.id.slice(0, 8) }),
          h("td", {}, h("span", { class: `pill phase-${s.phase}`, text: s.phase })),
          h("td", { title: s.last_activity || "", text: s.last_activity ? ago(Math.max(0, Math.round(now - Date.parse(s.last_activity) / 1000))) : "-" }),
          h("td", { text: s.tool_calls }), h("td", { text: s.errors }), h("td", { text: s.retries }),
          h("td", { title: `input ${s.tokens.input}, cache reads ${s.tokens.cached_input}, cache writes ${s.tokens.cache_creation}, output ${s.tokens.output}`,
            text: short(s.tokens.total) }),
          h("td", { text: s.cost === null ? "-" : `$${s.cost.toFixed(s.cost < 1 ? 4 : 2)}` }))))),
      rows.length > shown.length ? h("p", { class: "muted", text: `${rows.length - shown.length} older session(s) not shown (pylon sessions lists them).` }) : null);
    document.querySelectorAll("#worktree-table .session-badge").forEach((b) => b.remove());
    for (const s of live) { // each live session beside its worktree in the table above
      const row = s.worktree && [...document.querySelectorAll("#worktree-table tr[data-id]")].find((tr) => tr.dataset.id === s.worktree);
      if (row) row.firstChild.append(h("span", { class: `pill session-badge phase-${s.phase}`, title: `${s.client} ${s.id}`, text: s.phase }));
    }
    document.body.dataset.sessions = String(rows.length);
    document.body.dataset.liveSessions = String(live.length);
    // a phase changes without a file changing (a turn ends): while a session is live, look again now and then
    clearTimeout(state.sessionsTimer);
    if (live.length) state.sessionsTimer = setTimeout(() => { if (current() === "agents") loadSessions().catch(() => {}); }, 15000);
  }

  function renderConflicts(doc) {
    if (!window.pylonBoard.conflictsPaint) window.pylonBoard.conflictsPaint = performance.now();
    document.body.dataset.conflicts = String(doc.conflicting);
    const pairs = doc.pairs.filter((p) => p.conflicts.length || (p.touching || []).length);
    if (!pairs.length) return fill("conflicts", h("p", { class: "muted", text: `No conflicts (${doc.checked} pair(s) checked).` }));
    const paths = [...new Set(pairs.flatMap((p) => [...p.conflicts.map((c) => c.path), ...(p.touching || [])]))].sort();
    fill("conflicts", h("table", { class: "matrix", id: "conflict-matrix" },
      h("thead", {}, h("tr", {}, h("th", { text: "pair" }), paths.map((p) => h("th", { class: "path mono", text: p })))),
      h("tbody", {}, pairs.map((pair) => {
        const name = `${pair.a} ↔ ${pair.b || "checkout"}`;
        const left = (doc.departed || []).filter((d) => d === pair.a || d === pair.b);
        return h("tr", { class: left.length ? "departed" : "" }, h("td", { text: name },
          left.length ? h("div", { class: "muted", text: `${left.join(", ")}: left pylon` }) : null), paths.map((path) => {
          const hit = pair.conflicts.find((c) => c.path === path);
          if (hit) return h("td", { class: "cell hit", "data-pair": name, "data-path": path, title: hit.types.join(", "),
            text: "✕", onclick: () => showHunks(name, hit) });
          return (pair.touching || []).includes(path) ? h("td", { class: "cell touch", title: "changed on both sides, merges cleanly", text: "·" })
            : h("td", { class: "cell" });
        }));
      }))));
  }

  function showHunks(name, hit) {
    const el = $("hunks"); el.hidden = false;
    el.replaceChildren(h("h3", { text: `${name}: ${hit.path} (${hit.types.join(", ")})` }),
      ...(hit.messages || []).map((m) => h("p", { class: "muted", text: m })),
      ...(hit.hunks || []).map((k) => h("div", { class: "diff" }, h("div", { class: "hunk mono", text: `at line ${k.line}` }),
        ...k.lines.map((line) => h("pre", { class: /^[<>=|]{7}/.test(line) ? "hunk" : "", text: line })))));
  }

  function highlight(text) { // a few token classes: keywords, strings, comments; the rest plain text
    const out = [];
    const rx = /(#.*$|\/\/.*$)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|\b(def|class|return|import|from|if|else|elif|for|while|function|const|let|var|async|await|try|except|catch|new|None|null|true|false|True|False)\b/g;
    let last = 0, m;
    while ((m = rx.exec(text))) {
      if (m.index > last) out.push(text.slice(last, m.index));
      out.push(h("span", { class: m[1] ? "com" : m[2] ? "str" : "kw", text: m[0] }));
      last = rx.lastIndex;
    }
    out.push(text.slice(last));
    return out;
  }

  async function showDiff(id) {
    state.selected = id;
    document.querySelectorAll("#worktree-table tr[data-id]").forEach((tr) => tr.classList.toggle("selected", tr.dataset.id === id));
    const doc = await api("diff", { id });
    $("diff-title").hidden = false;
    $("diff-title").textContent = `Diff of ${id} since its baseline` + (doc.truncated ? " (bounded: ws diff --in ID --output FILE has all)" : "");
    const el = $("diff"); el.hidden = false; el.classList.add("diff"); el.dataset.id = id;
    const lines = doc.diff ? doc.diff.split("\n") : [];
    el.replaceChildren(...(lines.length ? lines.map((line) => {
      const cls = line.startsWith("diff --git") ? "file" : line.startsWith("@@") ? "hunk"
        : line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : "";
      return h("pre", { class: cls }, cls === "add" || cls === "del" || cls === "" ? [line.slice(0, 1), ...highlight(line.slice(1))] : line);
    }) : [h("p", { class: "muted", text: "No changes since the baseline." })]));
  }

  // -- Timeline ------------------------------------------------------------------------------
  function restoreAction(command) {
    const m = /^pylon ws restore (\S+)$/.exec(command);
    if (m) return { action: "restore", name: m[1] };
    if (command === "pylon ws undo") return { action: "undo" };
    return null;
  }
  async function loadTimeline() {
    const doc = await api("timeline", { limit: 100 });
    const rows = [];
    for (const e of doc.entries) {
      rows.push(h("tr", { class: "entry-row", "data-name": e.name },
        h("td", { text: ago(e.age) }), h("td", { text: e.kind }), h("td", { class: "mono", text: e.name }),
        h("td", { text: e.paths === null ? "" : `${e.paths} path(s)` }),
        h("td", { text: e.made_by + (e.kind === "op" ? ` (${e.status})` : "") })));
      const restores = e.kind === "op" ? Object.entries(e.restores || {}).filter(([, c]) => c) : e.restore ? [["restore", e.restore]] : [];
      for (const [side, command] of restores) {
        const body = restoreAction(command);
        rows.push(h("tr", { class: "restore" }, h("td"), h("td", { class: "muted", text: side }),
          h("td", { colspan: 3 }, h("code", { text: command }), " ", copyButton(command), " ",
            body ? actionButton("run", body, `Run \`${command}\`? (pylon ws undo reverses it)`) : null)));
      }
    }
    fill("timeline", actionButton("undo the newest op", { action: "undo" }, "Run `pylon ws undo`? (`pylon ws redo` reverses it)"),
      rows.length ? h("table", { id: "timeline-table" },
      h("thead", {}, h("tr", {}, ["age", "kind", "name", "size", "made by"].map((t) => h("th", { text: t })))),
      h("tbody", {}, rows)) : h("p", { class: "muted", text: "No kept states yet." }),
      doc.truncated ? h("p", { class: "muted", text: `${doc.total} entries; the newest 100 shown.` }) : null);
    document.body.dataset.timeline = String(doc.entries.length);
  }

  // -- Memory --------------------------------------------------------------------------------
  async function loadMemory() {
    if (!state.meta.store) {
      fill("graph", h("p", { class: "muted", text: "No .canon/ store here (canon init makes one)." }));
      return;
    }
    const marks = Promise.all([api("stale").catch(() => null), api("lint").catch(() => null)]).then(([stale, lint]) => {
      state.stale = new Set(stale ? stale.stale.map((s) => s.address) : []);
      state.lint = new Map();
      for (const f of lint ? lint.findings : []) if (f.address) state.lint.set(f.address, [...(state.lint.get(f.address) || []), f]);
      fill("findings", [...(stale ? stale.stale.slice(0, 50).map((s) => h("div", { class: "finding warning" },
          h("span", { class: "addr", text: s.address, onclick: () => showArticle(s.address) }),
          ` stale: ${s.commits_behind} commit(s), ${s.days_behind} days behind`)) : []),
        ...(lint ? lint.findings.slice(0, 100).map((f) => h("div", { class: `finding ${f.severity}` },
          h("span", { class: "mono", text: `${f.path}:${f.line} ` }), `${f.rule}: ${f.message}`)) : [])]
        .concat(!(stale && stale.stale.length) && !(lint && lint.findings.length) ? [h("p", { class: "muted", text: "No stale article, no lint finding." })] : []));
    });
    await Promise.all([loadGraph(), marks, loadCoverage(), loadJournal()]);
    drawGraph();
    document.body.dataset.memory = "ready";
  }

  async function loadGraph() {
    state.graph = await api("graph", { open: state.open.join(",") });
    drawGraph();
  }
  function drawGraph() {
    const g = state.graph; if (!g) return;
    $("graph-info").textContent = `(${g.counts.articles} articles, ${g.counts.links} links, ${g.counts.dead} dead; `
      + `${g.nodes.length} shown${g.hidden.units ? `, ${g.hidden.articles} in ${g.hidden.units} more folders hidden` : ""})`;
    fill("crumbs", h("button", { text: "top", onclick: () => { state.open = []; loadGraph(); } }),
      state.open.map((f, i) => h("button", { text: f + "/", onclick: () => { state.open = state.open.slice(0, i + 1); loadGraph(); } })));
    const W = 900, H = Math.max(420, Math.min(900, 60 * Math.sqrt(g.nodes.length) + 200));
    const pos = layout(g, W, H);
    const svg = h("svg:svg", { viewBox: `0 0 ${W} ${H}`, id: "graph-svg", "data-nodes": g.nodes.length });
    const few = g.nodes.length <= 80;
    for (const e of g.edges) {
      const a = pos.get(e.source), b = pos.get(e.target);
      if (a && b) svg.append(h("svg:line", { class: "edge", x1: a.x, y1: a.y, x2: b.x, y2: b.y, "stroke-width": Math.min(6, 1 + Math.log2(e.links)) },
        h("svg:title", { text: `${e.source} → ${e.target} (${e.links} link(s))` })));
    }
    for (const n of g.nodes) {
      const p = pos.get(n.id);
      const cls = ["node", state.stale.has(n.id) ? "stale" : "", state.lint.has(n.id) ? "lint" : ""].join(" ");
      const node = h("svg:g", { class: cls, "data-id": n.id, transform: `translate(${p.x},${p.y})`,
        onclick: () => n.folder ? openFolder(n.id) : showArticle(n.id) });
      if (n.folder) {
        const r = 8 + Math.min(22, 3 * Math.log2(1 + n.articles));
        node.append(h("svg:rect", { class: "folder", x: -r, y: -r * 0.7, width: 2 * r, height: 1.4 * r, rx: 4 }),
          h("svg:text", { x: r + 3, y: 4, text: `${n.id} (${n.articles})` }));
      } else {
        if (few && n.asset) node.append(h("svg:line", { class: "tether", x1: 0, y1: 0, x2: 0, y2: 22 }),
          h("svg:rect", { class: "asset", x: -4, y: 22, width: 8, height: 8 }, h("svg:title", { text: `governs ${n.asset}` })));
        node.append(h("svg:circle", { r: 7 }), h("svg:text", { x: 10, y: 4, text: n.id.split("/").pop() }));
      }
      node.append(h("svg:title", { text: n.folder ? `${n.id}: ${n.articles} articles (click to open)` : `${n.id}${n.capsule ? ": " + n.capsule : ""}${n.asset ? "\ngoverns " + n.asset : ""}` }));
      svg.append(node);
    }
    fill("graph", svg);
    if (!window.pylonBoard.graphPaint) window.pylonBoard.graphPaint = performance.now();
    document.body.dataset.graph = String(g.nodes.length);
  }
  function layout(g, W, H) { // a small deterministic force layout: positions from a circle, then springs
    const pos = new Map(), n = g.nodes.length;
    g.nodes.forEach((node, i) => { const t = 2 * Math.PI * i / Math.max(1, n);
      pos.set(node.id, { x: W / 2 + (W / 2.6) * Math.cos(t), y: H / 2 + (H / 2.6) * Math.sin(t), dx: 0, dy: 0 }); });
    if (n > 1 && n <= 400) {
      const k = Math.sqrt(W * H / n) * 0.6;
      for (let it = 0; it < 120; it++) {
        const temp = 12 * (1 - it / 120);
        const list = [...pos.values()];
        for (const a of list) { a.dx = 0; a.dy = 0; }
        for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) {
          const a = list[i], b = list[j]; const dx = a.x - b.x, dy = a.y - b.y; const d2 = Math.max(1, dx * dx + dy * dy);
          const f = k * k / d2; a.dx += dx * f / 10; a.dy += dy * f / 10; b.dx -= dx * f / 10; b.dy -= dy * f / 10;
        }
        for (const e of g.edges) { const a = pos.get(e.source), b = pos.get(e.target); if (!a || !b) continue;
          const dx = a.x - b.x, dy = a.y - b.y, d = Math.max(1, Math.hypot(dx, dy)), f = d / k;
          a.dx -= dx * f / 10; a.dy -= dy * f / 10; b.dx += dx * f / 10; b.dy += dy * f / 10; }
        for (const p of list) { const d = Math.max(1, Math.hypot(p.dx, p.dy)); p.x += p.dx / d * Math.min(d, temp);
          p.y += p.dy / d * Math.min(d, temp); p.x = Math.min(W - 60, Math.max(30, p.x)); p.y = Math.min(H - 30, Math.max(20, p.y)); }
      }
    }
    return pos;
  }
  function openFolder(id) { state.open.push(id.replace(/\/$/, "")); loadGraph(); }

  async function showArticle(address) {
    const el = $("article"); el.hidden = false; el.dataset.address = address;
    try {
      const a = await api("article", { address });
      el.replaceChildren(...present([h("h3", { class: "addr", text: a.address }),
        a.capsule ? h("p", { text: a.capsule }) : null,
        h("p", { class: "muted mono", text: `${a.file}${a.updated ? " · updated " + a.updated : ""}${a.scope ? " · scope " + a.scope : ""}` }),
        state.stale.has(a.address) ? h("p", { class: "finding warning", text: "stale: its assets changed after it did (canon stale)" }) : null,
        ...(state.lint.get(a.address) || []).map((f) => h("p", { class: `finding ${f.severity}`, text: `${f.rule}: ${f.message}` })),
        h("pre", { class: "body", text: a.body }),
        h("h3", { text: `Journal (${a.journal_total})` }),
        ...a.journal.map((j) => h("div", { class: "entry" }, h("div", { class: "when", text: `${j.logged || ""} ${j.name}` }), h("pre", { text: j.body })))]));
    } catch (e) { el.replaceChildren(h("p", { class: "finding error", text: String(e.message) })); }
  }

  async function loadCoverage() {
    const c = await api("coverage");
    $("coverage-info").textContent = `(${c.governed} of ${c.tracked} tracked files governed, ${(100 * c.share).toFixed(1)}%)`;
    const broad = new Set(c.broad.map((b) => b.article));
    const tiles = [...Object.entries(c.articles).map(([a, n]) => ({ label: a, files: n, kind: broad.has(a) ? "broad" : "governed" })),
      ...c.ungoverned.map((f) => ({ label: (f.folder || "(top)") + (f.loose ? "/*" : "/"), files: f.files, kind: "ungoverned" }))]
      .filter((t) => t.files > 0).sort((a, b) => b.files - a.files).slice(0, 400);
    const W = 900, H = 300, svg = h("svg:svg", { viewBox: `0 0 ${W} ${H}`, id: "treemap-svg" });
    squarify(tiles, 0, 0, W, H).forEach((t) => svg.append(h("svg:g", { class: "tile-g" },
      h("svg:rect", { class: `tile ${t.kind}`, x: t.x, y: t.y, width: Math.max(0, t.w), height: Math.max(0, t.h) },
        h("svg:title", { text: `${t.label}: ${t.files} file(s), ${t.kind}` })),
      t.w > 60 && t.h > 14 ? h("svg:text", { class: "tile-label", x: t.x + 3, y: t.y + 12, text: t.label.slice(0, Math.floor(t.w / 6)) }) : null)));
    fill("treemap", h("div", { class: "legend" }, ["governed", "broad", "ungoverned"].map((k) => h("span", {}, h("i", { class: k }), k))), svg);
  }
  function squarify(items, x, y, w, h_) { // slice-and-dice by halves of the total: simple and stable
    if (!items.length) return [];
    if (items.length === 1) return [{ ...items[0], x, y, w, h: h_ }];
    const total = items.reduce((s, t) => s + t.files, 0);
    let acc = 0, cut = 0;
    while (cut < items.length - 1 && acc + items[cut].files <= total / 2) acc += items[cut++].files;
    if (cut === 0) { acc = items[0].files; cut = 1; }
    const share = acc / total;
    return w >= h_ ? [...squarify(items.slice(0, cut), x, y, w * share, h_), ...squarify(items.slice(cut), x + w * share, y, w * (1 - share), h_)]
      : [...squarify(items.slice(0, cut), x, y, w, h_ * share), ...squarify(items.slice(cut), x, y + h_ * share, w, h_ * (1 - share))];
  }

  async function loadJournal() {
    const j = await api("journal", { limit: 100 });
    fill("journal", j.entries.length ? j.entries.map((e) => h("div", { class: "entry" },
      h("div", { class: "when", text: `${e.logged || e.name.slice(0, 10)} · ${e.subjects.join(", ") || "no subject"}` }),
      h("div", { text: e.first_line }))) : [h("p", { class: "muted", text: "The journal is empty." })]);
  }

  $("search-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const q = $("search").value.trim(); if (!q) return;
    try {
      const r = await api("search", { q });
      fill("results", h("p", { class: "muted", text: `${r.total} match(es)` }), r.results.map((hit) => h("div", { class: "hit", "data-address": hit.address,
        onclick: () => hit.kind === "article" ? showArticle(hit.address) : null },
        h("span", { class: "addr", text: hit.address }), hit.capsule ? ` — ${hit.capsule}` : "", h("div", { class: "muted", text: hit.snippet }))));
    } catch (e) { failed("results")(e); }
  });

  // -- views, live updates ---------------------------------------------------------------------
  const loaders = { agents: loadAgents, timeline: loadTimeline, memory: loadMemory };
  function current() { return (location.hash || "#agents").slice(1) in loaders ? (location.hash || "#agents").slice(1) : "agents"; }
  function show() {
    const view = current();
    for (const name of Object.keys(loaders)) $("view-" + name).hidden = name !== view;
    document.querySelectorAll("header nav a").forEach((a) => a.classList.toggle("active", a.dataset.view === view));
    if (!state.loaded[view]) { state.loaded[view] = true; loaders[view]().catch(failed(view === "memory" ? "graph" : view === "agents" ? "worktrees" : "timeline")); }
  }
  function refresh(kinds) { // a change batch: reload what it touches (the view shown now, the rest when shown)
    const touched = new Set(kinds.includes("memory") ? ["memory"] : []);
    if (kinds.includes("workspace")) { touched.add("agents"); touched.add("timeline"); }
    for (const view of touched) state.loaded[view] = false;
    show();
  }
  window.addEventListener("hashchange", show);

  function listen() {
    const es = new EventSource("/api/events");
    es.onopen = () => { $("live").textContent = "live"; $("live").classList.add("on"); };
    es.onerror = () => { $("live").textContent = "reconnecting"; $("live").classList.remove("on"); };
    es.addEventListener("change", (ev) => {
      const batch = JSON.parse(ev.data);
      window.pylonBoard.events = (window.pylonBoard.events || 0) + 1;
      document.body.dataset.events = String(window.pylonBoard.events);
      document.body.dataset.eventKinds = batch.kinds.join(",");
      refresh(batch.kinds);
    });
  }

  api("meta").then((meta) => {
    state.meta = meta;
    $("root").textContent = meta.root + (meta.allow_actions ? " · actions allowed" : " · read-only");
    document.body.dataset.actions = meta.allow_actions ? "on" : "off";
    show();
    listen();
  }).catch(failed("worktrees"));
})();
