/**
 * A transcript as an ATIF trajectory (the Agent Trajectory Interchange
 * Format a Harbor trial keeps as `agent/trajectory.json`), for
 * `ledgerbench export harbor`. Pure.
 *
 * Read from Harbor's source, `src/harbor/models/trajectories/` at commit
 * 7d91dbf (mirrored in `wrongbutworks/harbor`; upstream 39b85872, 0.22.0):
 * `trajectory.py` (`Trajectory`: `schema_version` up to `ATIF-v1.7`,
 * `agent` and `steps` required, at least one step, `step_id`s 1..n, an
 * observation result's `source_call_id` one of its own step's
 * `tool_call_id`s), `agent.py` (`Agent`: `name`, `version` required),
 * `step.py` (`Step`: `step_id`, `source` `system`, `user` or `agent`,
 * `message` required; `tool_calls` only on an `agent` step; extra keys
 * forbidden), `tool_call.py` (`tool_call_id`, `function_name`,
 * `arguments` an object), `observation.py` and `observation_result.py`
 * (`results` of `source_call_id` and `content`).
 *
 * @module
 */
import type { TranscriptMessage } from "../viewer/transcript.ts";
import { toolArguments } from "./_tool_arguments.ts";

/** The ATIF version written (`Trajectory.schema_version`'s latest at 7d91dbf). */
export const ATIF_VERSION = "ATIF-v1.7";

type Obj = Record<string, unknown>;

/** The agent a trajectory names (`Agent`). */
export interface AtifAgent {
  name: string;
  version: string;
  model_name: string | null;
}

/**
 * Messages as one ATIF trajectory, or null when there are none (a
 * trajectory holds at least one step).
 *
 * Rules: each message one step, in order, numbered from 1: `user` a
 * `user` step; `system` and `developer` a `system` step; a role starting
 * with `assistant` an `agent` step holding its tool calls (id, name, the
 * arguments as an object: `toolArguments`; a call without an id gets
 * `call_<step>_<n>`); any other role a `user` step whose message starts
 * `[<role>] `. Text parts join with a newline as the step's `message`
 * (`""` when none). A `tool` message's results become the `observation`
 * of the step before it when that is an `agent` step (a result naming
 * none of that step's calls keeps no `source_call_id`, as ATIF requires);
 * otherwise a `system` step of its own with them. Reasoning the transcript
 * kept as text stays text: the message model holds no separate reasoning.
 * O(message parts).
 *
 * @param messages the conversation (`episodeMessages`)
 * @param agent the agent to name
 * @returns the trajectory, its members in the order the models declare them
 * @example
 * ```ts
 * import { atifTrajectory } from "./_atif_trajectory.ts";
 * const trajectory = atifTrajectory([
 *   { role: "user", parts: [{ kind: "text", text: "List the files" }] },
 *   { role: "assistant", parts: [{ kind: "tool_call", id: "c1", name: "sh", arguments: '{"cmd":"ls"}' }] },
 *   { role: "tool", parts: [{ kind: "tool_result", id: "c1", text: "main.py" }] },
 * ], { name: "a", version: "unknown", model_name: null })!;
 * const steps = trajectory.steps as { source: string; observation?: unknown }[];
 * if (steps.length !== 2 || steps[1].source !== "agent" || !steps[1].observation) throw new Error();
 * ```
 */
export function atifTrajectory(
  messages: readonly TranscriptMessage[],
  agent: AtifAgent,
): Obj | null {
  const steps: Obj[] = [];
  for (const message of messages) {
    const results = message.parts.flatMap((part) => part.kind === "tool_result" ? [part] : []);
    if (message.role === "tool") {
      const last = steps.at(-1);
      const calls = new Set(
        ((last?.tool_calls ?? []) as Obj[]).map((call) => call.tool_call_id as string),
      );
      const observed = results.map((result) => ({
        ...(result.id !== null && calls.has(result.id) ? { source_call_id: result.id } : {}),
        content: result.text,
      }));
      if (last?.source === "agent") {
        const observation = (last.observation ?? { results: [] }) as { results: Obj[] };
        observation.results.push(...observed);
        last.observation = observation;
      } else {
        steps.push({
          step_id: steps.length + 1,
          source: "system",
          message: "",
          observation: { results: observed.map(({ content }) => ({ content })) },
        });
      }
      continue;
    }
    const source = message.role === "user"
      ? "user"
      : message.role === "system" || message.role === "developer"
      ? "system"
      : message.role.startsWith("assistant")
      ? "agent"
      : "user";
    const prefix = source === "user" && message.role !== "user" ? `[${message.role}] ` : "";
    const text = message.parts.flatMap((part) => part.kind === "text" ? [part.text] : []);
    const stepId = steps.length + 1;
    const calls = source === "agent"
      ? message.parts.flatMap((part, i) =>
        part.kind === "tool_call"
          ? [{
            tool_call_id: part.id ?? `call_${stepId}_${i + 1}`,
            function_name: part.name,
            arguments: toolArguments(part.arguments),
          }]
          : []
      )
      : [];
    steps.push({
      step_id: stepId,
      source,
      message: prefix + text.join("\n"),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(results.length > 0
        ? { observation: { results: results.map((result) => ({ content: result.text })) } }
        : {}),
    });
  }
  if (steps.length === 0) return null;
  return {
    schema_version: ATIF_VERSION,
    agent: {
      name: agent.name,
      version: agent.version,
      ...(agent.model_name === null ? {} : { model_name: agent.model_name }),
    },
    steps,
  };
}
