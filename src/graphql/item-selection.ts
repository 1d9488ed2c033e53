import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * The fields a page field's `items` selection asks for, through inline and named fragments (each
 * named fragment read once): a page resolver loads what its items will need in one batch, before
 * they resolve, so their fields answer at once instead of through a loader promise each.
 */
export function itemFieldsOf(info: GraphQLResolveInfo): Set<string> {
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
        else if (selection.name.value === 'items' && selection.selectionSet) pending.push({ set: selection.selectionSet, inItems: true });
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
