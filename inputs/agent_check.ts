/**
 * Reading the result of `ledgerbench agent check` (`--out FILE`, issue 21),
 * as `freeze --agent-check FILE` takes it.
 *
 * @module
 */
import { AgentCheck } from "../analysis/schema/records.ts";
import { type Loaded, loadJsonFile, refuseRepeatedId } from "./json_file.ts";

/**
 * Reads an agent check result through the strict {@link AgentCheck} schema
 * (an unknown key, a verdict that disagrees with its call count, a repeated
 * agent id: an error naming file, line and field). Cost: O(file).
 *
 * @param path a JSON file, as given
 * @returns the path, the SHA-256 of its bytes and the result
 * @throws {LedgerError} the codes of `loadJsonFile` (json_file.ts), and
 *   `schema_violation` at a repeated agent id
 */
export async function loadAgentCheck(path: string): Promise<Loaded<AgentCheck>> {
  const { sha256, value } = await loadJsonFile(path, AgentCheck);
  const firstAt = new Map<string, number>();
  value.agents.forEach((agent, index) =>
    refuseRepeatedId(path, firstAt, { list: "agents", what: "agent", id: agent.agent_id, index })
  );
  return { path, sha256, value };
}
