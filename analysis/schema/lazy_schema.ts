/**
 * A zod schema built on first use instead of at module load. Building
 * every schema of `records.ts` at import (each zod 4 node defines its
 * methods as closures, and each chained call such as `.min(1).nullable()`
 * clones the node) took about as long as importing zod itself, for every
 * command, though `summarize` parses only `Episode`. The module still
 * exports the same names with the same types; only the moment of building
 * moves.
 *
 * A schema built from others holds the built ones ({@link built}), not their
 * stand-ins: zod reads a nested schema on every parse, and a read through a
 * proxy costs far more than a property read, which a ledger of 10^5 rows
 * read through zod would pay on every field.
 *
 * @module
 */

/** Each stand-in's builder, for {@link built}. */
const builders = new WeakMap<object, () => object>();

/** Stands in for the schema `build` returns, built at the first access of any property. */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => built ??= build();
  // zod 4 defines a node's methods as closures over the node (`inst.safeParse =
  // (data) => ...`), so a method read through the proxy runs on the built schema.
  const standIn = new Proxy({} as T, {
    get: (_target, key) => Reflect.get(schema(), key),
    set: (_target, key, value) => Reflect.set(schema(), key, value),
    has: (_target, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      // A proxy may not report a property its (empty) target lacks as non-configurable.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
  builders.set(standIn, schema);
  return standIn;
}

/**
 * The schema a {@link lazySchema} stand-in stands for, built now if it was
 * not; any other value as it is.
 */
export function built<T>(schema: T): T {
  const build = builders.get(schema as object);
  return build === undefined ? schema : build() as T;
}
