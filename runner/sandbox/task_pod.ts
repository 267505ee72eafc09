/**
 * A task's sidecar services (Harbor's Compose services beside `main`),
 * opened before the agent's environment as the containers of one network
 * namespace, as a Kubernetes pod shares one:
 *
 * - a holder session, the runner's busybox asleep with seed 000's flags,
 *   owns the namespace: only loopback, the low ports open to every user;
 *   in every container of the pod each service's name resolves to
 *   `127.0.0.1` (its own copy of an `/etc/hosts` saying so, mounted: the
 *   engines differ on whose hosts file a joiner sees);
 * - each service runs its image as built (its entrypoint and command, the
 *   manifest's overrides), in the holder's namespace, with the hardening of
 *   a task's own environment (`environment_session.ts`: every capability
 *   dropped but a root's file ownership, no new privileges, the pids and
 *   memory limits) and its named volumes (empty directories of the
 *   episode's, shared by the containers that name them), once the services
 *   it depends on are ready (`started`: running; `healthy`: its healthcheck
 *   passed, Docker's rules, `healthy` in `environment_session.ts`);
 * - the agent's environment joins the namespace once the services it
 *   depends on are ready; the services are in their own containers (own
 *   processes, own files): the agent reaches them only as a client, over
 *   loopback, and nothing in the namespace reaches further than the
 *   runner's relay and proxies that listen in it (seed 000: the sandbox's
 *   only ways out).
 *
 * Everything ends with the episode ({@link TaskPod.end}).
 *
 * @module
 */
import type { ServiceVolume, TaskService } from "../../analysis/schema/suite_manifest.ts";
import { ENVIRONMENT_CAPABILITIES, healthy } from "./environment_session.ts";
import { CANDIDATE_LIMITS, ENVIRONMENT_PIDS_LIMIT } from "./sandbox_limits.ts";
import { removeTree } from "./remove_tree.ts";
import { SandboxError } from "./sandbox_error.ts";
import type { OpenSession, SessionBackend, SessionMount } from "./sandbox_session.ts";

/** The services of one episode, up and ready for the agent's environment. */
export interface TaskPod {
  /** The session whose network namespace the agent's environment joins (`SessionSpec.network`). */
  network: string;
  /** The agent's environment's mounts of the services' volumes. */
  mounts: SessionMount[];
  /** A service's session by its name; undefined for a name the pod lacks. */
  session(name: string): OpenSession | undefined;
  /** Ends every service, then the namespace's holder, and removes the volumes (idempotent). */
  end(): Promise<void>;
}

/** What {@link openTaskPod} opens. */
export interface TaskPodSpec {
  /** The services in start order, each with its frozen image ID. */
  services: readonly (TaskService & { imageId: string })[];
  /** What the agent's environment waits for (`environment_depends_on`). */
  dependsOn: Readonly<Record<string, "started" | "healthy">>;
  /** The volumes the agent's environment mounts (`environment_volumes`). */
  volumes: readonly ServiceVolume[];
  /** An image the holder runs the runner's busybox from (the task's environment's). */
  holderImage: string;
  labels: Record<string, string>;
  /** Memory in bytes and nano-CPUs for each service (the task's resources). */
  memoryBytes?: number;
  nanoCpus?: number;
  /** Where the volumes' directories go; default the system temp dir. */
  tempDir?: string;
}

/** The holder's memory: a sleeping busybox. */
const HOLDER_MEMORY_BYTES = 32 * 1024 ** 2;

/**
 * Opens the services of a task's environment (see the module doc).
 *
 * @param backend where the sessions open
 * @param spec the services, what the agent's environment waits for and mounts, the holder's image
 * @returns the pod, ready for the agent's environment to join
 * @throws {SandboxError} `environment_unhealthy` when a service fails its
 *   healthcheck (the task's fault), `image_missing`, `engine_error`,
 *   `isolation_failed` as the backend throws them; everything opened is ended first
 */
export async function openTaskPod(backend: SessionBackend, spec: TaskPodSpec): Promise<TaskPod> {
  const opened: OpenSession[] = [];
  const volumeRoot = await Deno.makeTempDir({ dir: spec.tempDir, prefix: "ledgerbench-volumes-" });
  let ended: Promise<void> | null = null;
  const end = () =>
    ended ??= (async () => {
      for (const session of opened.reverse()) await session.end();
      await removeTree(volumeRoot).catch(() => {});
    })();
  try {
    // Each container's own hosts file (it may edit it): loopback, and every service's name there.
    const hosts = "127.0.0.1\tlocalhost\n::1\tlocalhost\n" +
      spec.services.map((service) => `127.0.0.1\t${service.name}\n`).join("");
    const hostsMount = async (owner: string): Promise<SessionMount> => {
      const host = `${volumeRoot}/hosts/${owner}`;
      await Deno.writeTextFile(host, hosts, { mode: 0o644 });
      return { host, path: "/etc/hosts", readOnly: false };
    };
    await Deno.mkdir(`${volumeRoot}/hosts`);
    await Deno.mkdir(`${volumeRoot}/volumes`);
    const volumeDirs = new Map<string, string>();
    const mountsOf = (volumes: readonly ServiceVolume[] | undefined) =>
      Promise.all((volumes ?? []).map(async (volume) => {
        let host = volumeDirs.get(volume.volume);
        if (host === undefined) {
          host = `${volumeRoot}/volumes/${volume.volume}`;
          await Deno.mkdir(host, { mode: 0o755 });
          volumeDirs.set(volume.volume, host);
        }
        return { host, path: volume.path, readOnly: volume.read_only === true };
      }));
    const holder = await backend.open({
      role: "service",
      image: spec.holderImage,
      mounts: [],
      // Root without a capability (the gate's files are the runner's own, mode 0700).
      user: "0:0",
      cwd: "/",
      pidsLimit: 8,
      memoryBytes: HOLDER_MEMORY_BYTES,
      tmpfsBytes: 1024 ** 2,
      labels: { ...spec.labels, "ledgerbench.service": "network" },
      network: "shared",
    });
    opened.push(holder);
    const sessions = new Map<string, OpenSession>();
    const ready = new Map<string, Promise<void>>();
    const awaitReady = async (needs: Readonly<Record<string, "started" | "healthy">>) => {
      for (const [name, readiness] of Object.entries(needs)) {
        if (readiness === "started") continue;
        const service = spec.services.find((s) => s.name === name)!;
        let passed = ready.get(name);
        if (passed === undefined) {
          passed = healthy(sessions.get(name)!, service.healthcheck!).catch((error) => {
            throw error instanceof SandboxError
              ? new SandboxError("environment_unhealthy", `service "${name}": ${error.message}`)
              : error;
          });
          ready.set(name, passed);
        }
        await passed;
      }
    };
    for (const service of spec.services) {
      await awaitReady(service.depends_on ?? {});
      const facts = await backend.image(service.imageId);
      if (facts === null) {
        throw new SandboxError(
          "image_missing",
          `Cannot start service "${service.name}": image "${service.imageId}" is not present`,
        );
      }
      const session = await backend.open({
        role: "service",
        image: facts.id,
        mounts: [await hostsMount(`service-${service.name}`), ...await mountsOf(service.volumes)],
        user: service.user ?? facts.user ?? "0:0",
        cwd: facts.workdir ?? "/",
        env: service.env,
        keepCapabilities: ENVIRONMENT_CAPABILITIES,
        pidsLimit: ENVIRONMENT_PIDS_LIMIT,
        memoryBytes: spec.memoryBytes ?? CANDIDATE_LIMITS.memoryBytes,
        nanoCpus: spec.nanoCpus,
        tmpfsBytes: null,
        labels: { ...spec.labels, "ledgerbench.service": service.name },
        network: { join: holder.id! },
        asBuilt: {
          entrypoint: service.entrypoint ?? facts.entrypoint,
          // A new entrypoint drops the image's command, as Docker's does.
          command: service.command ?? (service.entrypoint === undefined ? facts.cmd : []),
        },
      });
      opened.push(session);
      sessions.set(service.name, session);
    }
    await awaitReady(spec.dependsOn);
    return {
      network: holder.id!,
      mounts: [await hostsMount("main"), ...await mountsOf(spec.volumes)],
      session: (name) => sessions.get(name),
      end,
    };
  } catch (error) {
    await end();
    throw error;
  }
}
