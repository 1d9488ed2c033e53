import { type FieldIssue, invalidFields } from './errors.ts';

/**
 * How deeply objects and arrays may nest in a JSON body, a query or GraphQL `variables`
 * (docs/api-conventions.md "Input"): the deepest legitimate input (a template definition, a workflow, a source context)
 * stays well under it, and every walker after this check recurses at most this far.
 */
export const MAX_INPUT_DEPTH = 64;

/** One value still to visit; its path is built only when a field must be named. */
interface Visit {
  value: unknown;
  parent: Visit | null;
  key: string | number;
  depth: number;
}

function pathOf(visit: Visit): string {
  const keys: Array<string | number> = [];
  let root = visit;
  for (; root.parent !== null; root = root.parent) keys.push(root.key);
  let path = String(root.key);
  for (const key of keys.reverse()) path = typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
  return path || '(body)';
}

/**
 * Refuses input PostgreSQL or Shelf cannot take, as that area's validation failure naming the
 * field: objects and arrays nested deeper than MAX_INPUT_DEPTH (reason `nesting_too_deep`), and
 * NUL characters (U+0000) in any string or key, which PostgreSQL text cannot store (reason
 * `nul_character`), and numbers JSON.parse made infinite (1e999). The walk is iterative, so no document can exhaust the stack; it stops at the
 * first level past the limit.
 */
export function refuseUnsafeInput(value: unknown, prefix = ''): void {
  const nul: string[] = [];
  const infinite: string[] = [];
  // only containers are queued; a string is checked where it is met, its path built on a find
  const pending: Visit[] = [];
  const found: Visit[] = [];
  const meet = (child: unknown, parent: Visit | null, key: string | number, depth: number) => {
    if (typeof child === 'string') {
      if (child.includes('\u0000')) nul.push(pathOf({ value: child, parent, key, depth }));
    } else if (typeof child === 'number') {
      // JSON.parse reads 1e999 as Infinity, which no number column holds and schemas let through
      if (!Number.isFinite(child)) infinite.push(pathOf({ value: child, parent, key, depth }));
    } else if (child !== null && typeof child === 'object') {
      found.push({ value: child, parent, key, depth });
    }
  };
  meet(value, null, prefix, 0);
  // children are met in document order and queued in reverse, so they are walked in document order
  const queueFound = () => {
    for (let i = found.length - 1; i >= 0; i--) pending.push(found[i]!);
    found.length = 0;
  };
  queueFound();
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const depth = visit.depth + 1;
    if (depth > MAX_INPUT_DEPTH) {
      throw invalidFields([{ field: pathOf(visit), message: `nests objects and arrays deeper than ${MAX_INPUT_DEPTH} levels` }], {
        reason: 'nesting_too_deep',
      });
    }
    const current = visit.value as object;
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) meet(current[i], visit, i, depth);
    } else {
      for (const key of Object.keys(current)) {
        if (key.includes('\u0000')) nul.push(pathOf(visit));
        meet((current as Record<string, unknown>)[key], visit, key, depth);
      }
    }
    queueFound();
  }
  if (infinite.length > 0) {
    throw invalidFields([...new Set(infinite)].map((field) => ({ field, message: 'must be a finite number (at most about 1.8e308)' })));
  }
  if (nul.length === 0) return;
  const details: FieldIssue[] = [...new Set(nul)].map((field) => ({ field, message: 'must not contain the NUL character (U+0000)' }));
  throw invalidFields(details, { reason: 'nul_character' });
}
