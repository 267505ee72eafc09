/**
 * The spelling of a host the runner's recording egress proxy may let a
 * phase reach, shared by the suite manifest and the plan. Pure.
 *
 * @module
 */
import { z } from "zod";

/**
 * One host a verifier or an agent may reach through the runner's recording
 * proxy: a lower-case DNS name (labels of letters, digits, `_` and `-`,
 * 1 to 63 characters, not starting or ending with `-`; at most 253
 * characters; an IPv4 address is such a name), or `*.` and a name (any name
 * ending in `.` and that name, not the name itself), optionally `:port`
 * (1 to 65535; absent: 80 and 443). No trailing dot, no upper case: one
 * host has one spelling.
 *
 * @example
 * ```ts
 * import { AllowHost } from "./allow_host.ts";
 * AllowHost.parse("pypi.org");
 * AllowHost.parse("*.pythonhosted.org:443");
 * if (AllowHost.safeParse("PyPI.org").success) throw new Error("upper case is refused");
 * ```
 */
export const AllowHost = z.string().max(260).regex(
  /^(\*\.)?[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*(?::[1-9][0-9]{0,4})?$/,
  "must be a lower-case host name or *.name, optionally :port",
).refine((host) => host.replace(/:[0-9]+$/, "").replace(/^\*\./, "").length <= 253, {
  message: "must be a host name of at most 253 characters",
}).refine((host) => Number(/:([0-9]+)$/.exec(host)?.[1] ?? 1) <= 65535, {
  message: "must have a port of 1 to 65535",
});
/** A host entry; see {@link AllowHost}. */
export type AllowHost = z.infer<typeof AllowHost>;
