import { type FieldNode, type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

/**
 * Whether the resolving field's selection asks, through fragments and inline fragments too, for
 * one of `fields` among the fields of its `under` field (a page's `items`): a page resolver then
 * reads what those fields need with the page instead of one loader call per item. Aliases do not
 * hide a field (its name is read, not its alias); each fragment is walked once.
 */
export function asksBelow(info: GraphQLResolveInfo, under: string, fields: ReadonlySet<string>): boolean {
  const below = selected(info);
  const sets: SelectionSetNode[] = [];
  for (const field of below) if (field.name.value === under && field.selectionSet) sets.push(field.selectionSet);
  return fieldsOf(sets, info).some((field) => fields.has(field.name.value));
}

/** Whether the resolving field's own selection asks, through fragments too, for one of `fields`. */
export function asks(info: GraphQLResolveInfo, fields: ReadonlySet<string>): boolean {
  return selected(info).some((field) => fields.has(field.name.value));
}

/**
 * The fields named `name` among the fields of the resolving field's `under` field, fragments
 * spread (a result's `template { versions }`): a resolver reads what they need with its own row.
 */
export function fieldsBelow(info: GraphQLResolveInfo, under: string, name: string): FieldNode[] {
  const sets: SelectionSetNode[] = [];
  for (const field of selected(info)) if (field.name.value === under && field.selectionSet) sets.push(field.selectionSet);
  return fieldsOf(sets, info).filter((field) => field.name.value === name);
}

/** Whether a field's own selection asks, through fragments too, for one of `fields`. */
export function fieldAsks(field: FieldNode, info: GraphQLResolveInfo, fields: ReadonlySet<string>): boolean {
  return field.selectionSet !== undefined && fieldsOf([field.selectionSet], info).some((below) => fields.has(below.name.value));
}

function selected(info: GraphQLResolveInfo): FieldOf[] {
  return fieldsOf(
    info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : [])),
    info,
  );
}

type FieldOf = FieldNode;

/** The fields of some selection sets, fragments spread (each once), without recursion. */
function fieldsOf(sets: SelectionSetNode[], info: GraphQLResolveInfo): FieldOf[] {
  const pending = [...sets];
  const seen = new Set<string>();
  const found: FieldOf[] = [];
  while (pending.length > 0) {
    for (const selection of pending.pop()!.selections) {
      if (selection.kind === Kind.FIELD) found.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) pending.push(selection.selectionSet);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = info.fragments[selection.name.value];
        if (fragment) pending.push(fragment.selectionSet);
      }
    }
  }
  return found;
}
