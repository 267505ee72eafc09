/**
 * ledgerbench's analysis: pure functions of ledger rows and parameters (no
 * Docker, no clock, randomness only through `seededRandom`), re-exported from
 * one entry point. Each helper module appends its own line below.
 *
 * @module
 */
export * from "./sprt/mod.ts";
