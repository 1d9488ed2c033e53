import { type FieldNode, type GraphQLResolveInfo, Kind, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

/*
 * What an operation's selection asks for, read from its document so that resolvers load and
 * compute only that. Answers are remembered per document node: yoga keeps one parsed document per
 * operation text, so a repeated operation reads its selection once.
 */

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
