/**
 * The episode browser's two local assets: its stylesheet and its
 * one script, served from the page's own origin (the policy allows nothing
 * else: no inline script or style, nothing fetched from outside). The
 * script submits a filter form when one of its selects changes, or in a
 * static export filters and pages the table from the export's row files;
 * every served page works without it.
 *
 * @module
 */

/** `assets/view.css`. */
export const VIEW_CSS = `:root { color-scheme: light; --muted: #666; --line: #ddd; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
nav { background: #243447; padding: 8px 16px; }
nav a { color: #fff; text-decoration: none; margin-right: 4px; }
main { padding: 12px 16px 40px; }
h1 { font-size: 20px; margin: 8px 0; } h2 { font-size: 17px; } h3 { font-size: 15px; margin: 18px 0 6px; }
h4 { font-size: 13px; margin: 10px 0 4px; color: #333; }
.meta, .muted { color: var(--muted); }
form.filters { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; margin: 10px 0;
  padding: 8px; background: #fff; border: 1px solid var(--line); }
select { max-width: 22em; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid var(--line); padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f0f2f5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.outcome.resolved, .pass, .added { color: #176b2c; font-weight: 600; }
.outcome.failed, .fail, .deleted { color: #a11c1c; font-weight: 600; }
.outcome.invalid, .modified { color: #8a5a00; font-weight: 600; }
.id { font-family: ui-monospace, monospace; font-size: 13px; }
h2.episode-id .id { font-size: 18px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; border: 1px solid var(--line);
  padding: 6px 8px; margin: 4px 0; font: 12px/1.4 ui-monospace, monospace; max-height: 32em; overflow: auto; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 6px 0; }
dt { color: var(--muted); } dd { margin: 0; }
.message { border-left: 4px solid #9aa5b1; padding: 2px 0 2px 8px; margin: 6px 0; }
.message.reply { border-left-color: #3d7bd9; }
.message.role-tool { border-left-color: #c98a1b; }
.role { font-weight: 600; font-size: 12px; text-transform: uppercase; color: #444; }
.label { font-size: 11px; text-transform: uppercase; background: #eef; padding: 0 4px; }
.absent, .problem { color: #7a4b00; font-style: italic; }
.corrected { color: #5b4bb7; font-size: 12px; }
p.corrected { font-size: 14px; background: #f1effb; border: 1px solid #cfc8ef; padding: 6px 8px; }
.imported { background: #fff8e1; border: 1px solid #f0d98c; padding: 8px; }
.patch .add { color: #176b2c; background: #eaf7ec; } .patch .del { color: #a11c1c; background: #fbeaea; }
.patch .hunk { color: #5b4bb7; } .patch .head { font-weight: 600; }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.side { min-width: 0; background: #fff; border: 1px solid var(--line); padding: 4px 10px; }
ul.changed { margin: 4px 0; padding-left: 20px; }
`;

/**
 * `assets/view.js`: a select marked `data-autosubmit` submits its form on
 * change (the server's table). A form marked `data-static` (an export's
 * table) reads its filters and page from the page's query instead: a
 * change of the form opens `index.html` with the new query, and the
 * script answers it from the export's row files (`data/rows-<k>.js`,
 * loaded as scripts: a page from `file://` may not fetch), putting every
 * value in the page as text (`textContent`), never as markup. The table
 * is marked `data-rendered` once drawn.
 */
export const VIEW_JS = `"use strict";
document.addEventListener("change", (event) => {
  const target = event.target;
  if (target instanceof HTMLSelectElement && target.hasAttribute("data-autosubmit") && target.form) {
    target.form.submit();
  }
});
const staticForm = document.querySelector("form[data-static]");
if (staticForm) {
  const names = ["agent", "task", "outcome", "stop", "invalid"];
  const total = Number(staticForm.dataset.rows);
  const chunkRows = Number(staticForm.dataset.chunk);
  const pageSize = Number(staticForm.dataset.page);
  const query = new URLSearchParams(location.search);
  const filter = {};
  for (const name of names) {
    const value = query.get(name) ?? "";
    const field = staticForm.elements.namedItem(name);
    if (value !== "" && field) field.value = value;
    if (value !== "") filter[name] = value;
  }
  const link = (values) => {
    const q = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) if (value) q.set(name, value);
    const search = q.toString();
    return "index.html" + (search === "" ? "" : "?" + search);
  };
  const go = () => {
    const chosen = new FormData(staticForm);
    location.href = link(Object.fromEntries(names.map((name) => [name, chosen.get(name)])));
  };
  staticForm.addEventListener("change", go);
  staticForm.addEventListener("submit", (event) => { event.preventDefault(); go(); });
  const waiting = new Map();
  globalThis.ledgerbenchRows = (k, rows) => waiting.get(k)?.(rows);
  const load = (k) => new Promise((resolve, reject) => {
    waiting.set(k, resolve);
    const script = document.createElement("script");
    script.src = "data/rows-" + k + ".js";
    script.onerror = () => reject(new Error("cannot load " + script.src));
    document.head.append(script);
  });
  const element = (tag, text, attributes = {}) => {
    const node = document.createElement(tag);
    if (text !== null) node.textContent = text;
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    return node;
  };
  const id = (whole, shown) => element("span", shown, { class: "id", title: whole });
  const row = (r) => {
    const tr = element("tr", null, { "data-line": String(r[0]) });
    const cell = (content, attributes) => {
      const td = element("td", null, attributes);
      td.append(...content);
      tr.append(td);
    };
    const anchor = element("a", null, { href: "episode/" + r[1] + ".html#line-" + r[0] });
    anchor.append(id(r[2], r[3]));
    cell([anchor]);
    cell([id(r[4], r[5])]);
    cell([id(r[6], r[7])]);
    cell(r[9] === "" ? [r[8]] : [r[8] + " ", element("span", "corrected", { class: "corrected", title: r[9] })],
      { class: "outcome " + r[8] });
    cell([r[10]]);
    cell([r[11]]);
    for (const k of [12, 13, 14]) cell([r[k]], { class: "num" });
    return tr;
  };
  const matches = (r) =>
    (!filter.agent || r[4] === filter.agent) && (!filter.task || r[6].includes(filter.task)) &&
    (!filter.outcome || r[8] === filter.outcome) && (!filter.stop || r[10] === filter.stop) &&
    (!filter.invalid || r[11] === filter.invalid);
  const draw = (rows, count, page, pages) => {
    document.querySelector("#episodes tbody").replaceChildren(...rows.map(row));
    document.getElementById("match-count").textContent = count.toLocaleString("en-US");
    document.getElementById("no-match").hidden = rows.length > 0;
    for (const pager of document.querySelectorAll(".pager")) {
      const parts = ["Page " + page + " of " + pages.toLocaleString("en-US")];
      if (page > 1) parts.push(" · ", element("a", "previous", { href: link({ ...filter, page: page > 2 ? String(page - 1) : "" }), rel: "prev" }));
      if (page < pages) parts.push(" · ", element("a", "next", { href: link({ ...filter, page: String(page + 1) }), rel: "next" }));
      pager.replaceChildren(...parts);
    }
    document.getElementById("episodes").setAttribute("data-rendered", "");
  };
  const wanted = Math.max(1, Math.floor(Number(query.get("page")) || 1));
  const render = async () => {
    if (Object.keys(filter).length === 0) {
      const pages = Math.max(1, Math.ceil(total / pageSize));
      const page = Math.min(wanted, pages);
      const first = (page - 1) * pageSize;
      const k = Math.floor(first / chunkRows);
      const rows = total === 0 ? [] : await load(k);
      draw(rows.slice(first - k * chunkRows, first - k * chunkRows + pageSize), total, page, pages);
      return;
    }
    const found = [];
    for (let k = 0; k * chunkRows < total; k++) for (const r of await load(k)) if (matches(r)) found.push(r);
    const pages = Math.max(1, Math.ceil(found.length / pageSize));
    const page = Math.min(wanted, pages);
    draw(found.slice((page - 1) * pageSize, page * pageSize), found.length, page, pages);
  };
  if (Object.keys(filter).length > 0 || wanted > 1) render().catch((error) => console.error(error));
  else document.getElementById("episodes").setAttribute("data-rendered", "");
}
`;
