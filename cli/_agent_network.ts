/**
 * The options that freeze what the agents of tasks with an `agent_network`
 * may reach (`Plan.agent_egress`, `runner/egress/agent_egress.ts`), shared
 * by `freeze` and `suite check` (whose check plan runs the oracle as the
 * agent).
 *
 * @module
 */
import type { Plan } from "../analysis/schema/records.ts";
import type { Suite } from "../analysis/schema/suite_manifest.ts";
import { expandPackageIndexes, PACKAGE_INDEXES } from "../runner/egress/agent_egress.ts";
import type { ParsedArgs } from "./_args.ts";
import { UsageError } from "./_command.ts";
import { allowHostOption } from "./_allow_host_option.ts";

/** The options' `parseArgs` declarations. */
export const AGENT_NETWORK_OPTIONS = {
  "agent-allow-host": { type: "string", multiple: true },
  "agent-allow-any-public-host": { type: "boolean" },
  "agent-no-network": { type: "boolean" },
} as const;

/** The options' help lines (column 2 at 27 characters, as `freeze --help` sets them). */
export const AGENT_NETWORK_HELP =
  `  --agent-allow-host HOST  A host the agent of a task that asks for the internet
                           (Harbor's allow_internet, network_mode "public") may
                           reach through the runner's recording proxy: a host
                           name or *.name, optionally :port, or
                           "${PACKAGE_INDEXES}" (PyPI, npm, Debian, Ubuntu, Go,
                           crates.io, Maven Central, RubyGems); repeatable.
                           Default none. The model APIs are never reachable
  --agent-allow-any-public-host
                           Let such an agent reach any host with a public address
                           on ports 80 and 443 (by name only, recorded in the plan)
  --agent-no-network       Give no agent a network, not even a task's own
                           allowed_hosts; every request is still recorded, denied`;

/**
 * The plan's `agent_egress` from the options: absent when no task of the
 * suite asks for a network (the options then only earn a warning);
 * otherwise the hosts (each lower-cased and checked, `@package-indexes`
 * expanded), whether any public host is allowed, and whether the tasks'
 * own allow-lists apply (all three off under `--agent-no-network`).
 *
 * @param values the parsed options
 * @param suite the loaded suite
 * @returns the record and the warnings to print
 * @throws {UsageError} for a host that is none, or `--agent-no-network` beside another option
 */
export function agentEgressOption(
  values: ParsedArgs["values"],
  suite: Suite,
): { record: Plan["agent_egress"]; warnings: string[] } {
  const hosts = expandPackageIndexes(
    allowHostOption(values, "agent-allow-host", [PACKAGE_INDEXES]) ?? [],
  );
  const anyPublic = values["agent-allow-any-public-host"] === true;
  const none = values["agent-no-network"] === true;
  if (none && (hosts.length > 0 || anyPublic)) {
    throw new UsageError(
      'Option "--agent-no-network" cannot go with "--agent-allow-host" or ' +
        '"--agent-allow-any-public-host"',
    );
  }
  const asking = suite.manifest.tasks.filter((task) => task.agent_network !== undefined);
  if (asking.length === 0) {
    return {
      record: undefined,
      warnings: hosts.length > 0 || anyPublic || none
        ? ["no task of the suite asks for a network: the agent network options change nothing"]
        : [],
    };
  }
  const publicTasks = asking.filter((task) => task.agent_network?.mode === "public").length;
  const warnings = publicTasks > 0 && hosts.length === 0 && !anyPublic && !none
    ? [
      `${publicTasks} task(s) ask for the internet, and their agents reach no host: name them ` +
      `with --agent-allow-host (or ${PACKAGE_INDEXES}, or --agent-allow-any-public-host)`,
    ]
    : [];
  return {
    record: { allow_hosts: hosts, any_public_host: anyPublic, task_allowlists: !none },
    warnings,
  };
}
