/**
 * Thin helpers over dockerode: one shared client per engine socket, an
 * availability probe with a reason, image ID lookups (never a pull), deadlines on engine calls, the
 * offline image build, and log demultiplexing.
 *
 * @module
 */
export * from "./docker_client.ts";
export * from "./docker_available.ts";
export * from "./image_digest.ts";
export * from "./build_images.ts";
export * from "./demux_logs.ts";
export * from "./engine_call.ts";
