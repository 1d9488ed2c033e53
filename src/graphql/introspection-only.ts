import { type DocumentNode, Kind, parse, type SelectionSetNode } from 'graphql';

const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);

/**
 * Whether the operation a request runs asks only for the schema (`__schema`, `__type`,
 * `__typename` at its root, through fragments too). Such a request needs no key: the schema is
 * public (schema/schema.graphql), so GraphiQL's Docs panel loads before a key is entered, while
 * every query of data still authenticates. A document that does not parse is not introspection
 * (yoga answers its syntax error). `parsed` is the document yoga already parsed from `query`
 * (its parser cache), so the request's text is not parsed a second time.
 */
export function isIntrospectionOnly(query: string | undefined, operationName: string | undefined, parsed?: DocumentNode): boolean {
  if (!query) return false;
  let document: DocumentNode;
  try {
    document = parsed ?? parse(query, { maxTokens: 10_000 });
  } catch {
    return false;
  }
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  if (operation?.operation !== 'query') return false;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d.selectionSet] as const] : [])));
  // an explicit stack, and each fragment once: a cycle or a deep nest of fragments cannot loop or recurse
  const pending: SelectionSetNode[] = [operation.selectionSet];
  const seen = new Set<string>();
  while (pending.length > 0) {
    for (const selection of pending.pop()!.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!INTROSPECTION_FIELDS.has(selection.name.value)) return false;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        pending.push(selection.selectionSet);
      } else {
        const name = selection.name.value;
        const spread = fragments.get(name);
        if (!spread) return false;
        if (!seen.has(name)) pending.push(spread);
        seen.add(name);
      }
    }
  }
  return true;
}
