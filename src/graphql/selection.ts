import { type FieldNode, type GraphQLResolveInfo, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

/*
 * What an operation's selection asks for, read from its document so that resolvers load and
 * compute only that. Page look-aheads are remembered per document node: yoga keeps one parsed document per
 * operation text, so a repeated operation reads its selection once. One module for every resolver that
 * looks ahead (pages, results, templates, categories).
 */

/**
 * Whether the resolving field's selection asks, through fragments and inline fragments too, for
 * one of `fields` among the fields of its `under` field (a page's `items`): a page resolver then
 * reads what those fields need with the page instead of one loader call per item. Aliases do not
 * hide a field (its name is read, not its alias).
 */
export function asksBelow(info: GraphQLResolveInfo, under: string, fields: ReadonlySet<string>): boolean {
  const below = childFieldsOf(info, under);
  for (const field of fields) if (below.has(field)) return true;
  return false;
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

function selected(info: GraphQLResolveInfo): FieldNode[] {
  return fieldsOf(
    info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : [])),
    info,
  );
}

/** The fields of some selection sets, fragments spread (each once), without recursion. */
function fieldsOf(sets: SelectionSetNode[], info: GraphQLResolveInfo): FieldNode[] {
  const pending = [...sets];
  const seen = new Set<string>();
  const found: FieldNode[] = [];
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

const childFieldsByNode = new WeakMap<FieldNode, Map<string, ReadonlySet<string>>>();

/**
 * The fields the selection of `child` (a page's `items`, a result's `product`) under the field being
 * resolved asks for, through inline and named fragments (each named fragment read once): the
 * resolver loads what they will need in one batch, before they resolve, so that they answer at
 * once instead of through a loader promise each.
 */
export function childFieldsOf(info: GraphQLResolveInfo, child: string): ReadonlySet<string> {
  const node = info.fieldNodes.length === 1 ? info.fieldNodes[0]! : null;
  let byChild = node && childFieldsByNode.get(node);
  const known = byChild?.get(child);
  if (known) return known;
  const fields = readChildFields(info, child);
  if (node) {
    if (!byChild) childFieldsByNode.set(node, (byChild = new Map()));
    byChild.set(child, fields);
  }
  return fields;
}

function readChildFields(info: GraphQLResolveInfo, child: string): Set<string> {
  const fields = new Set<string>();
  const seen = new Set<string>();
  const pending: Array<{ set: SelectionSetNode; inItems: boolean }> = info.fieldNodes.flatMap((node) =>
    node.selectionSet ? [{ set: node.selectionSet, inItems: false }] : [],
  );
  while (pending.length > 0) {
    const { set, inItems } = pending.pop()!;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (inItems) fields.add(selection.name.value);
        else if (selection.name.value === child && selection.selectionSet) pending.push({ set: selection.selectionSet, inItems: true });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        pending.push({ set: selection.selectionSet, inItems });
      } else {
        // a fragment spread in both places is read in each: the key says where
        const key = `${inItems ? 'items:' : ''}${selection.name.value}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const fragment = info.fragments[selection.name.value];
        if (fragment) pending.push({ set: fragment.selectionSet, inItems });
      }
    }
  }
  return fields;
}

const namesByOperation = new WeakMap<OperationDefinitionNode, ReadonlySet<string>>();

/**
 * Whether the operation selects a field of this name anywhere (on any type, in any fragment: every
 * fragment of a valid document is used). A conservative yes: what a field costs to compute (a
 * signed download link, say) is skipped only when no selection could ask for it.
 */
export function operationSelects(info: GraphQLResolveInfo, name: string): boolean {
  let names = namesByOperation.get(info.operation);
  if (!names) {
    names = fieldNamesOf(info);
    namesByOperation.set(info.operation, names);
  }
  return names.has(name);
}

function fieldNamesOf(info: GraphQLResolveInfo): Set<string> {
  const names = new Set<string>();
  const pending: SelectionSetNode[] = [info.operation.selectionSet, ...Object.values(info.fragments).map((f) => f.selectionSet)];
  while (pending.length > 0) {
    for (const selection of pending.pop()!.selections) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      if (selection.kind !== Kind.FRAGMENT_SPREAD && selection.selectionSet) pending.push(selection.selectionSet);
    }
  }
  return names;
}
