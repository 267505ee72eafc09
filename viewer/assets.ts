/**
 * The episode browser's two local assets (issue 25): its stylesheet and its
 * one script, served from the page's own origin (the policy allows nothing
 * else: no inline script or style, nothing fetched from outside). The
 * script submits a filter form when one of its selects changes, or in a
 * static export filters the table in place; every served page works
 * without it.
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
 * change (the server's table); a form marked `data-static` (an export's
 * table) filters the table's rows by their `data-` attributes instead, and
 * counts the rows that match.
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
  const apply = () => {
    const chosen = new FormData(staticForm);
    let shown = 0;
    for (const row of document.querySelectorAll("#episodes tbody tr")) {
      const match = names.every((name) => !chosen.get(name) || row.dataset[name] === chosen.get(name));
      row.hidden = !match;
      if (match) shown++;
    }
    const count = document.getElementById("match-count");
    if (count) count.textContent = shown.toLocaleString("en-US");
  };
  staticForm.addEventListener("change", apply);
  staticForm.addEventListener("submit", (event) => { event.preventDefault(); apply(); });
  apply();
}
`;
