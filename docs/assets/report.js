// Charts and sortable tables of the report. Loaded as an ES module on every page;
// the chart bundle (assets/vendor/vega-bundle.js, 0.9 MB, sets window.vegaEmbed) is
// imported only when a page has a chart. Everything runs from Material's document$,
// so instant navigation draws the charts of each page it swaps in.
// Nothing here reaches another host: the chart specs sit in data-spec attributes and
// the downloads (CSV, JSON, PNG, SVG) are made in the page (Blob and data URLs).

const BUNDLE = new URL("./vendor/vega-bundle.js", import.meta.url).href;
let bundle = null;
const vegaEmbed = () => (bundle ??= import(BUNDLE).then(() => window.vegaEmbed));

const dark = () => document.body.getAttribute("data-md-color-scheme") === "slate";
// Below this width axis labels are cut shorter and legends wrap.
const NARROW_PX = 600;

// Readable on both palettes: labels and titles at full contrast, axes that leave
// room (overlapping labels are dropped, long ones cut with an ellipsis).
function config(el, isDark) {
  const narrow = el.clientWidth > 0 && el.clientWidth < NARROW_PX;
  const fg = isDark ? "#e6e6ef" : "#1f1f24";
  const muted = isDark ? "#b4b4c4" : "#4a4a55";
  const label = { labelColor: muted, titleColor: fg, labelFontSize: narrow ? 10 : 11, titleFontSize: 11 };
  return {
    background: null,
    view: { stroke: null },
    axis: { ...label, labelOverlap: "greedy", labelSeparation: 4, labelLimit: narrow ? 110 : 220, titleLimit: narrow ? 260 : 600 },
    axisX: { labelFlush: true },
    legend: { ...label, labelLimit: narrow ? 240 : 0, symbolStrokeWidth: 1.5 },
    title: { color: fg, subtitleColor: muted, limit: narrow ? 300 : 0 },
  };
}

const live = new Set();  // drawn charts: finalized when instant navigation removes them

async function draw(el) {
  const spec = JSON.parse(el.dataset.spec);
  // vega-embed puts its own aria-label on the div: keep the page's description.
  el.dataset.label ??= el.getAttribute("aria-label") || "";
  const isDark = dark();
  const options = {
    actions: false,
    renderer: "svg",
    config: config(el, isDark),
    tooltip: { theme: isDark ? "dark" : "light" },
  };
  if (isDark) options.theme = "dark";
  const embed = await vegaEmbed();
  if (el._vega) el._vega.finalize();
  el._vega = await embed(el, spec, options);
  live.add(el);
  if (el.dataset.label) el.setAttribute("aria-label", el.dataset.label);
  // The views, for tests and the browser console (window.reportViews.get(el).scenegraph()).
  (window.reportViews ??= new Map()).set(el, el._vega.view);
  el.dataset.drawn = isDark ? "dark" : "light";
}

// The data a chart draws: Altair keeps it in spec.datasets, hand-made specs in data.values
// (possibly in layers). One dataset gives its rows; several give {name: rows}.
function chartData(spec) {
  const found = {};
  for (const [name, rows] of Object.entries(spec.datasets || {})) found[name] = rows;
  const walk = (node, path) => {
    if (!node || typeof node !== "object") return;
    if (node.data && Array.isArray(node.data.values)) found[node.data.name || path || "values"] = node.data.values;
    for (const key of ["layer", "concat", "hconcat", "vconcat"]) {
      (node[key] || []).forEach((child, i) => walk(child, `${path ? path + "." : ""}${key}${i}`));
    }
    if (node.spec) walk(node.spec, path);
  };
  walk(spec, "");
  const names = Object.keys(found);
  return names.length === 1 ? found[names[0]] : found;
}

const slugify = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || "chart";

// A chart's rows as CSV: one dataset as it is; several in one table, a first column naming each.
// A text cell that a spreadsheet would run as a formula (= + @) is quoted with a leading '.
function csvOf(data) {
  const sets = Array.isArray(data) ? { "": data } : data;
  const many = Object.keys(sets).length > 1;
  const cols = [];
  for (const rows of Object.values(sets)) for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k)) cols.push(k);
  const cell = (v) => {
    if (v === null || v === undefined) return "";
    let s = typeof v === "object" ? JSON.stringify(v) : String(v);
    if (typeof v === "string" && /^[=+@\t\r]/.test(s)) s = "'" + s;
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [(many ? ["dataset", ...cols] : cols).map(cell).join(",")];
  for (const [name, rows] of Object.entries(sets)) {
    for (const r of rows) lines.push((many ? [name, ...cols.map((c) => r[c])] : cols.map((c) => r[c])).map(cell).join(","));
  }
  return lines.join("\r\n") + "\r\n";
}

function download(name, text, type, title) {
  const blob = new Blob([text], { type });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.title = `${title}, ${(blob.size / 1024).toFixed(1)} KiB`;
  return link;
}

// The chart as a picture, made from its drawn view when asked for (the view may be redrawn in the other palette).
function picture(el, name, type) {
  const link = document.createElement("a");
  link.href = "#";
  link.className = `chart-${type}`;
  link.textContent = type.toUpperCase();
  link.title = `Save this chart as ${type.toUpperCase()}`;
  link.addEventListener("click", async (e) => {
    e.preventDefault();
    if (!el._vega) return;
    const url = await el._vega.view.toImageURL(type, type === "png" ? 2 : 1);
    const a = document.createElement("a");
    a.href = url;
    a.download = `${name}.${type}`;
    document.body.append(a);
    a.click();
    a.remove();
  });
  return link;
}

// Under each chart: the chart as PNG and SVG, its data as CSV and JSON downloads and, when the page
// names it, the command that reproduces the figure (data-command). Text only: a command is shown, never parsed.
function tools(el, n) {
  if (el.nextElementSibling && el.nextElementSibling.classList.contains("chart-tools")) return;
  const box = document.createElement("div");
  box.className = "chart-tools";
  box.setAttribute("data-search-exclude", "");
  const page = slugify(location.pathname.split("/").pop().replace(/\.html$/, "") || "index");
  const name = `${page}-${slugify(el.getAttribute("aria-label") || el.dataset.label || "chart-" + n)}`;
  const data = chartData(JSON.parse(el.dataset.spec));
  const csv = download(`${name}.csv`, csvOf(data), "text/csv", "The data this chart draws, as CSV");
  csv.className = "chart-csv";
  csv.textContent = "data (CSV)";
  const json = download(`${name}.json`, JSON.stringify(data, null, 1) + "\n", "application/json",
                        "The data this chart draws, as JSON");
  json.className = "chart-data";
  json.textContent = "data (JSON)";
  box.append("Save: ", picture(el, name, "png"), " · ", picture(el, name, "svg"), " · ", csv, " · ", json);
  if (el.dataset.command) {
    const label = document.createElement("span");
    label.textContent = " · reproduce: ";
    const code = document.createElement("code");
    code.className = "chart-command";
    code.textContent = el.dataset.command;
    box.append(label, code);
  }
  el.after(box);
}

function drawAll() {
  for (const el of live) {
    if (!el.isConnected) {
      el._vega?.finalize();  // drops the view's window listeners (resize)
      window.reportViews?.delete(el);
      live.delete(el);
    }
  }
  document.querySelectorAll(".vega-chart").forEach((el, i) => {
    try {
      tools(el, i + 1);
    } catch (err) {
      el.dataset.toolsError = String(err);
    }
    draw(el).catch((err) => {
      el.dataset.error = String(err);
      el.textContent = "This chart could not be drawn: " + err;
    });
  });
}

// Sorting: click a header; numbers sort as numbers ("1,234.5 ms", "5.9×"), a dash goes last.
function key(cell) {
  const text = (cell.dataset.sort ?? cell.textContent).trim();
  const m = text.replace(/,/g, "").match(/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?/i);
  return m ? { n: parseFloat(m[0]), t: text } : { n: null, t: text };
}

function sortable(table) {
  if (table.dataset.sortReady || !table.tHead || !table.tBodies.length) return;
  table.dataset.sortReady = "1";
  const heads = Array.from(table.tHead.rows[0].cells);
  heads.forEach((th, col) => {
    th.classList.add("sortable");
    th.title = "Sort by this column";
    th.addEventListener("click", () => {
      const asc = th.getAttribute("aria-sort") !== "ascending";
      heads.forEach((h) => h.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      const body = table.tBodies[0];
      const rows = Array.from(body.rows).map((r, i) => ({ r, i, k: key(r.cells[col] || r.cells[0]) }));
      rows.sort((a, b) => {
        const x = a.k, y = b.k;
        let c;
        if (x.n !== null && y.n !== null) c = x.n - y.n;
        else if (x.n !== null) return -1;
        else if (y.n !== null) return 1;
        else if (x.t === "–" || y.t === "–") return x.t === "–" ? 1 : -1;
        else c = x.t.localeCompare(y.t);
        return (asc ? c : -c) || a.i - b.i;
      });
      for (const { r } of rows) body.appendChild(r);
    });
  });
}

// A number in a right-aligned cell stays on one line ("3.6e-03" must not break at its minus); a
// note after it ("⚠ host-bound", "(noisy)") and a range's second end ("1.062–1.064") may wrap.
function keepNumbersWhole(table) {
  for (const td of table.querySelectorAll("td[style*='right']")) {
    if (td.dataset.whole || td.children.length) continue;
    td.dataset.whole = "1";
    const text = td.textContent;
    const m = text.match(/^(\s*)(\S+)([\s\S]*)$/);
    if (!m) continue;
    const head = document.createElement("span");
    head.className = "num";
    m[2].split("–").forEach((part, i) => {
      if (i) head.append("–", document.createElement("wbr"));
      head.append(part);
    });
    const note = document.createElement("span");
    note.className = "num-note";
    note.textContent = m[3].trimStart();
    td.replaceChildren(m[1], head, m[3] ? " " : "", ...(note.textContent ? [note] : []));
  }
}

// Long names (kernels, generated Triton kernels, operators) may wrap after _ , :: or a comma
// rather than at any letter: a <wbr> there; overflow-wrap in report.css stays the fallback.
const LONG_WORD = /[^\s]{16,}/;
function breakableNames(table) {
  const cells = table.querySelectorAll("td:not([style*='right']), td.kernel-name summary");
  for (const cell of cells) {
    if (cell.dataset.breakable) continue;
    cell.dataset.breakable = "1";
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => (n.parentElement.closest("code") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    const nodes = [];
    while (walker.nextNode()) if (LONG_WORD.test(walker.currentNode.data)) nodes.push(walker.currentNode);
    for (const node of nodes) {
      const parts = node.data.split(/(?<=_|::|,)(?=[^_:,])/);
      if (parts.length < 2) continue;
      const frag = document.createDocumentFragment();
      parts.forEach((part, i) => {
        if (i) frag.append(document.createElement("wbr"));
        frag.append(part);
      });
      node.replaceWith(frag);
    }
  }
}

document$.subscribe(() => {
  drawAll();
  document.querySelectorAll("article table").forEach((table) => {
    keepNumbersWhole(table);
    breakableNames(table);
    sortable(table);
  });
});

// A chart in a hidden tab has no width yet: resize when its tab is chosen.
document.addEventListener("change", (e) => {
  if (e.target.matches(".tabbed-set > input")) window.dispatchEvent(new Event("resize"));
});

// Redraw in the other palette when the reader toggles light/dark.
new MutationObserver(() => {
  const want = dark() ? "dark" : "light";
  for (const el of document.querySelectorAll(".vega-chart")) {
    if (el.dataset.drawn && el.dataset.drawn !== want) draw(el);
  }
}).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });

// A link to a kernel row (#k-...) inside a tab that is not chosen: choose that tab, then scroll.
function revealTarget() {
  const id = decodeURIComponent(location.hash.slice(1));
  const el = id && document.getElementById(id);
  if (!el) return;
  let block = el.closest(".tabbed-block");
  while (block) {
    const set = block.closest(".tabbed-set");
    const n = Array.from(block.parentElement.children).indexOf(block);
    const input = set.querySelectorAll(":scope > input")[n];
    if (input && !input.checked) {
      input.checked = true;
      window.dispatchEvent(new Event("resize"));
    }
    block = set.parentElement.closest(".tabbed-block");
  }
  el.scrollIntoView({ block: "center" });
}
window.addEventListener("hashchange", revealTarget);
document$.subscribe(() => setTimeout(revealTarget, 0));
