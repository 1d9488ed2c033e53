/** The keys of T that are not null or undefined, each with its other values. */
type Given<T> = { [K in keyof T]?: Exclude<T[K], null | undefined> };

/**
 * GraphQL clients send null for an argument they do not give; the core's inputs treat a missing
 * key as "not given" and apply their defaults, so nulls are dropped before the core sees them.
 */
export function withoutNulls<T extends Record<string, unknown>>(args: T | null | undefined): Given<T> {
  return Object.fromEntries(Object.entries(args ?? {}).filter(([, value]) => value !== null && value !== undefined)) as Given<T>;
}
