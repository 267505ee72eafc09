/**
 * Two agents' episodes on one task, side by side: the same
 * sections as the episode page, in two columns, with a form to choose the
 * task and the two agents. Pure.
 *
 * @module
 */
import { type EpisodeEvidence, episodeSections } from "./episode_page.ts";
import { idSpan, page, selectField, text } from "./_html.ts";
import { distinctShortIds } from "../analysis/untrusted_text.ts";
import { type Links, SERVER_LINKS } from "./links.ts";

/** What the comparison shows, and what it was asked for. */
export interface Comparison {
  /** The task and agents asked for (empty when not chosen). */
  task: string;
  left: string;
  right: string;
  /** The two episodes found; null where none matched. */
  leftEpisode: EpisodeEvidence | null;
  rightEpisode: EpisodeEvidence | null;
  /** Every agent of the ledger, for the form (the task is typed: a ledger may hold many). */
  agents: readonly string[];
}

function column(
  side: string,
  agent: string,
  evidence: EpisodeEvidence | null,
  task: string,
  links: Links,
) {
  const body = evidence !== null
    ? episodeSections(evidence)
    : agent === "" || task === ""
    ? `<p class="absent">Choose a task and an agent.</p>`
    : `<p class="absent">${idSpan(agent)} has no episode on ${idSpan(task)}.</p>`;
  const open = evidence === null
    ? ""
    : `<p><a href="${links.episode(evidence)}">Open this episode alone</a></p>`;
  return `<div class="side" id="${side}">${open}${body}</div>`;
}

/**
 * The side-by-side page: the form, then the left and the right episode in
 * two columns (`#left`, `#right`), each saying when its agent has no
 * episode on the task.
 *
 * @param comparison what was asked for and what was found
 * @param links where links go (default: the server's; a static export has no form)
 * @returns the page's HTML
 */
export function comparePage(comparison: Comparison, links: Links = SERVER_LINKS): string {
  const { task, left, right } = comparison;
  const form = links.static
    ? ""
    : `<form method="get" action="compare" class="filters" id="compare-form">
<label>Task id <input type="text" name="task" value="${text(task)}" size="16" required></label>
${selectField("left", "Left agent", comparison.agents, { chosen: left, none: "choose" })}
${selectField("right", "Right agent", comparison.agents, { chosen: right, none: "choose" })}
<button type="submit">Side by side</button>
</form>`;
  // The two agents shortened together: never two different ids that look alike.
  const [leftShown, rightShown] = distinctShortIds([left, right]);
  const heading = task === ""
    ? "Two agents on one task"
    : `Task ${idSpan(task)}: ${left === "" ? "?" : idSpan(left, leftShown)} and ${
      right === "" ? "?" : idSpan(right, rightShown)
    }`;
  return page({
    root: links.root,
    static: links.static,
    title: task === "" ? "Side by side" : `Side by side: ${task}`,
    body: `<h1>${heading}</h1>
${form}
<div class="columns">
${column("left", left, comparison.leftEpisode, task, links)}
${column("right", right, comparison.rightEpisode, task, links)}
</div>`,
  });
}
