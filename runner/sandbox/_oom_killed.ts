/**
 * Private: whether the kernel's OOM killer ended a process of a container,
 * on every engine (Podman before 5.0 never says so).
 *
 * @module
 */
import type Docker from "dockerode";
import { engineIdentity } from "../docker/engine_identity.ts";

/**
 * Whether the memory limit killed a process of the container: the engine's
 * `State.OOMKilled`, and, on an engine that does not report OOM kills
 * (`reportsOomKills`: Podman before 5.0), the kernel's own record, which
 * names the container's cgroup (`oom-kill:...,oom_memcg=<cgroup>,
 * task_memcg=<cgroup>,...`, a cgroup path ending in the container's ID on
 * Docker and Podman alike; Linux 4.19 and later). The kernel log is read
 * with `dmesg` (root, or `CAP_SYSLOG` where `kernel.dmesg_restrict` is 1);
 * when it cannot be read, the engine's answer stands.
 *
 * @param docker the engine client
 * @param containerId the container's full ID
 * @param state the container's inspected state
 * @returns true when a process of the container was OOM-killed
 */
export async function containerOomKilled(
  docker: Docker,
  containerId: string,
  state: { OOMKilled?: boolean },
): Promise<boolean> {
  if (state.OOMKilled === true) return true;
  if ((await engineIdentity(docker)).reportsOomKills) return false;
  let log: Deno.CommandOutput;
  try {
    log = await new Deno.Command("dmesg", { stdout: "piped", stderr: "null" }).output();
  } catch {
    return false;
  }
  if (!log.success) return false;
  const cgroup = new RegExp(`(?:oom|task)_memcg=[^,]*${containerId}`);
  return new TextDecoder().decode(log.stdout).split("\n")
    .some((line) => line.includes("oom-kill:") && cgroup.test(line));
}
