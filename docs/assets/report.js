// Charts and sortable tables of the report. Loaded as an ES module after
// assets/vendor/vega-bundle.js (which sets window.vegaEmbed); everything runs
// from Material's document$ so that instant navigation redraws too.
// Nothing here fetches anything: the chart specs sit in data-spec attributes.

const dark = () => document.body.getAttribute("data-md-color-scheme") === "slate";

async function draw(el) {
  const spec = JSON.parse(el.dataset.spec);
  // vega-embed puts its own aria-label on the div: keep the page's description.
  el.dataset.label ??= el.getAttribute("aria-label") || "";
  const isDark = dark();
  const options = {
    actions: false,
    renderer: "svg",
    config: { background: null, view: { stroke: null } },
    tooltip: { theme: isDark ? "dark" : "light" },
  };
  if (isDark) options.theme = "dark";
  if (el._vega) el._vega.finalize();
  el._vega = await window.vegaEmbed(el, spec, options);
  if (el.dataset.label) el.setAttribute("aria-label", el.dataset.label);
  // The views, for tests and the browser console (window.reportViews.get(el).scenegraph()).
  (window.reportViews ??= new Map()).set(el, el._vega.view);
  el.dataset.drawn = isDark ? "dark" : "light";
}

function drawAll() {
  for (const el of document.querySelectorAll(".vega-chart")) {
    draw(el).catch((err) => {
      el.dataset.error = String(err);
      el.textContent = "This chart could not be drawn: " + err;
    });
  }
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

document$.subscribe(() => {
  drawAll();
  document.querySelectorAll("article table").forEach(sortable);
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
