import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type GraphQLType,
  getNamedType,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  valueFromAST,
  valueFromASTUntyped,
} from 'graphql';

/*
 * What an operation would cost, measured on its document before anything runs (docs/graphql.md
 * "Limits"). Each selected field costs its `complexity` (1 unless the field says otherwise), and the
 * fields below an object or list field count `multiplier` times: 1 for an object, the page size for
 * a page, the documented bound for other lists (their field descriptions give it). This is the
 * model of @pothos/plugin-complexity, whose `complexity` field option declares the numbers, with
 * two additions it cannot express:
 *
 * - a descending tree (Category.children inside Category.children ...): a brand's tree holds each
 *   category once, so a whole chain counts its bound once, not once per level; going back up
 *   (parent, brand, product) and down again counts again;
 * - introspection (`__schema`, `__type`): counted exactly, as the number of fields its answer has.
 *
 * Fragments are measured once per place they are used in (a memo), so fan-out costs nothing to
 * measure; a fragment cycle is reported.
 */

/** What @pothos/plugin-complexity stores in a field's extensions. */
type FieldComplexity =
  | number
  | { field?: number; multiplier?: number }
  | ((args: Record<string, unknown>, ctx: unknown, field: unknown) => number | { field?: number; multiplier?: number });

/** The extension a tree field carries: its chains count the multiplier once (see above). */
export const DESCENDING_TREE = 'shelfDescendingTree';

export class FragmentCycle extends Error {
  readonly fragment: string;
  constructor(fragment: string) {
    super(`Fragment "${fragment}" spreads itself (directly or through other fragments).`);
    this.fragment = fragment;
  }
}

/** The measured size of one operation. */
export interface Measured {
  /** Fields the answer can hold, by the cost model. */
  cost: number;
  /** Deepest field nesting, the root fields being 1 (introspection not counted: its cost is exact). */
  depth: number;
  /** Aliased fields, each fragment counted as often as it is spread. */
  aliases: number;
  /** Directives (@include, @skip, ...) anywhere in the operation, fragments counted as often as they are spread. */
  directives: number;
}

interface Shape {
  depth: number;
  aliases: number;
  directives: number;
}

interface Pair {
  /** What the nodes of one tree level cost, without the tree field's own levels below. */
  local: number;
  /** What the tree levels below cost, by their own weights. */
  nested: number;
}

type Selectable = SelectionSetNode;

/** Measures operations of one document; keep one per request (variables feed the page sizes). */
export class QueryMeasure {
  private readonly shapes = new Map<Selectable, Shape>();
  private readonly costs = new Map<Selectable, Map<string, number>>();
  private readonly pairs = new Map<Selectable, Map<string, Pair>>();
  private readonly active = new Set<string>();
  private readonly introspection: IntrospectionCounter;
  private readonly schema: GraphQLSchema;
  private readonly fragments: Map<string, FragmentDefinitionNode>;
  private readonly rawVariables: Record<string, unknown>;
  private variables: Record<string, unknown> = {};

  constructor(schema: GraphQLSchema, fragments: Map<string, FragmentDefinitionNode>, variables: Record<string, unknown>, costCap: number) {
    this.schema = schema;
    this.fragments = fragments;
    this.rawVariables = variables;
    this.introspection = new IntrospectionCounter(schema, fragments, costCap);
  }

  /** Depth, aliases and directives: what a document alone tells, cheap to count. */
  shape(operation: OperationDefinitionNode): Shape {
    const own = operation.directives?.length ?? 0;
    const variableDirectives = (operation.variableDefinitions ?? []).reduce((n, v) => n + (v.directives?.length ?? 0), 0);
    const inner = this.shapeOf(operation.selectionSet);
    return { depth: inner.depth, aliases: inner.aliases, directives: inner.directives + own + variableDirectives };
  }

  /** The cost of an operation (after its shape was found within the limits). */
  cost(operation: OperationDefinitionNode): number {
    this.variables = { ...this.rawVariables };
    for (const definition of operation.variableDefinitions ?? []) {
      const name = definition.variable.name.value;
      if (this.variables[name] === undefined && definition.defaultValue) this.variables[name] = valueFromASTUntyped(definition.defaultValue);
    }
    const root = this.schema.getRootType(operation.operation);
    return root ? this.costOf(operation.selectionSet, root) : 0;
  }

  private shapeOf(set: Selectable): Shape {
    const known = this.shapes.get(set);
    if (known) return known;
    const shape: Shape = { depth: 0, aliases: 0, directives: 0 };
    for (const selection of set.selections) {
      shape.directives += selection.directives?.length ?? 0;
      let inner: Shape = { depth: 0, aliases: 0, directives: 0 };
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) shape.aliases += 1;
        if (selection.selectionSet) inner = this.shapeOf(selection.selectionSet);
        // introspection is measured exactly by its cost; its TypeRef nesting is deep by design
        const introspective = selection.name.value === '__schema' || selection.name.value === '__type';
        shape.depth = Math.max(shape.depth, introspective ? 1 : 1 + inner.depth);
      } else {
        const name = selection.kind === Kind.FRAGMENT_SPREAD ? selection.name.value : null;
        const set = this.fragmentSet(name, selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : null);
        inner = this.within(name, () => this.shapeOf(set));
        shape.depth = Math.max(shape.depth, inner.depth);
      }
      shape.aliases += inner.aliases;
      shape.directives += inner.directives;
    }
    this.shapes.set(set, shape);
    return shape;
  }

  /** A fragment's selection set, with cycle detection for named fragments. */
  private fragmentSet(name: string | null, inline: SelectionSetNode | null): SelectionSetNode {
    if (inline) return inline;
    const fragment = name === null ? undefined : this.fragments.get(name);
    if (!fragment) return EMPTY;
    if (this.active.has(fragment.name.value)) throw new FragmentCycle(fragment.name.value);
    return fragment.selectionSet;
  }

  private within<T>(name: string | null, work: () => T): T {
    if (name === null) return work();
    this.active.add(name);
    try {
      return work();
    } finally {
      this.active.delete(name);
    }
  }

  /**
   * The selections of a set: fields go to `field`, fragments (named or inline, on the type their
   * condition names) to `fragment`, which measures them through its own memo, so a fragment spread
   * many times is measured once; cycles are reported.
   */
  private eachSelection(
    set: Selectable,
    type: GraphQLCompositeType,
    field: (node: FieldNode, on: GraphQLCompositeType) => void,
    fragment: (inner: SelectionSetNode, on: GraphQLCompositeType) => void,
  ): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        field(selection, type);
        continue;
      }
      const name = selection.kind === Kind.FRAGMENT_SPREAD ? selection.name.value : null;
      const definition = name === null ? null : this.fragments.get(name);
      const condition = selection.kind === Kind.INLINE_FRAGMENT ? selection.typeCondition : definition?.typeCondition;
      const on = condition ? this.schema.getType(condition.name.value) : type;
      if (!on || !isCompositeType(on)) continue;
      const inner = this.fragmentSet(name, selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : null);
      this.within(name, () => fragment(inner, on));
    }
  }

  private costOf(set: Selectable, type: GraphQLCompositeType): number {
    const memo = memoFor(this.costs, set);
    const known = memo.get(type.name);
    if (known !== undefined) return known;
    let total = 0;
    this.eachSelection(
      set,
      type,
      (node, on) => {
        total += this.fieldCost(node, on);
      },
      (inner, on) => {
        total += this.costOf(inner, on);
      },
    );
    memo.set(type.name, total);
    return total;
  }

  private fieldCost(node: FieldNode, on: GraphQLCompositeType): number {
    const name = node.name.value;
    if (name === '__typename') return 1;
    if (name === '__schema' || name === '__type') return this.introspection.root(node, this.variables);
    const field = isObjectType(on) || isInterfaceType(on) ? on.getFields()[name] : undefined;
    // an unknown field is left to GraphQL's own validation, which refuses it
    if (!field) return 1;
    const { own, multiplier } = this.complexityOf(field, node);
    if (!node.selectionSet) return own;
    const inner = getNamedType(field.type);
    if (!isCompositeType(inner)) return own;
    if (field.extensions?.[DESCENDING_TREE]) return own + multiplier * this.treeWeight(node.selectionSet, inner, field);
    return own + multiplier * this.costOf(node.selectionSet, inner);
  }

  /**
   * A chain of one tree field (children { children { ... } }) below one node: its levels hold at
   * most `multiplier` nodes together, so the chain weighs the most one node of it can cost: the
   * larger of a level's own fields and the weights of the chains below it, added up.
   */
  private treeWeight(set: Selectable, type: GraphQLCompositeType, tree: GraphQLField<unknown, unknown>): number {
    const pair = this.treePair(set, type, tree);
    return Math.max(pair.local, pair.nested);
  }

  private treePair(set: Selectable, type: GraphQLCompositeType, tree: GraphQLField<unknown, unknown>): Pair {
    const memo = memoFor(this.pairs, set);
    const key = `${type.name} ${tree.name}`;
    const known = memo.get(key);
    if (known) return known;
    const pair: Pair = { local: 0, nested: 0 };
    this.eachSelection(
      set,
      type,
      (node, on) => {
        const field = isObjectType(on) || isInterfaceType(on) ? on.getFields()[node.name.value] : undefined;
        if (field === tree && node.selectionSet) {
          pair.local += this.complexityOf(field, node).own;
          pair.nested += this.treeWeight(node.selectionSet, on, tree);
        } else {
          pair.local += this.fieldCost(node, on);
        }
      },
      (inner, on) => {
        const part = this.treePair(inner, on, tree);
        pair.local += part.local;
        pair.nested += part.nested;
      },
    );
    memo.set(key, pair);
    return pair;
  }

  private complexityOf(field: GraphQLField<unknown, unknown>, node: FieldNode): { own: number; multiplier: number } {
    let declared = field.extensions?.complexity as FieldComplexity | undefined;
    if (typeof declared === 'function') declared = declared(this.argumentsOf(field, node), undefined, field);
    const listy = isListType(isNonNullType(field.type) ? field.type.ofType : field.type);
    if (typeof declared === 'number') return { own: declared, multiplier: listy ? DEFAULT_LIST_MULTIPLIER : 1 };
    return { own: declared?.field ?? 1, multiplier: Math.max(declared?.multiplier ?? (listy ? DEFAULT_LIST_MULTIPLIER : 1), 0) };
  }

  /** Argument values as sent (literals and variables), defaults applied; not coerced: execution does that. */
  private argumentsOf(field: GraphQLField<unknown, unknown>, node: FieldNode): Record<string, unknown> {
    const args: Record<string, unknown> = {};
    for (const definition of field.args) {
      const given = node.arguments?.find((a) => a.name.value === definition.name)?.value;
      if (given) args[definition.name] = this.valueOf(given);
      else if (definition.defaultValue !== undefined) args[definition.name] = definition.defaultValue;
    }
    return args;
  }

  private valueOf(node: ValueNode): unknown {
    try {
      return valueFromASTUntyped(node, this.variables);
    } catch {
      return undefined;
    }
  }
}

/** What a list field without a declared multiplier counts (the builder declares one for every list). */
export const DEFAULT_LIST_MULTIPLIER = 100;

const EMPTY: SelectionSetNode = { kind: Kind.SELECTION_SET, selections: [] };

function memoFor<V>(memos: Map<Selectable, Map<string, V>>, set: Selectable): Map<string, V> {
  let memo = memos.get(set);
  if (!memo) {
    memo = new Map();
    memos.set(set, memo);
  }
  return memo;
}

type Meta = 'Schema' | 'Type' | 'Field' | 'InputValue' | 'EnumValue' | 'Directive';

/** One introspection object and what it is. */
interface MetaObject {
  kind: Meta;
  value: object;
}

/**
 * Counts an introspection selection exactly against the schema: every field of the answer counts
 * 1. Each (selection set, schema object) pair is counted once (a memo), and counting stops once
 * the total passes the cap, so a hostile nest of fields { type { fields ... } } costs little to
 * measure.
 */
class IntrospectionCounter {
  private readonly memo = new Map<Selectable, Map<object, number>>();
  private readonly active = new Set<string>();
  private work = 0;
  private readonly schema: GraphQLSchema;
  private readonly fragments: Map<string, FragmentDefinitionNode>;
  private readonly cap: number;

  constructor(schema: GraphQLSchema, fragments: Map<string, FragmentDefinitionNode>, cap: number) {
    this.schema = schema;
    this.fragments = fragments;
    this.cap = cap;
  }

  root(node: FieldNode, variables: Record<string, unknown>): number {
    if (!node.selectionSet) return 1;
    if (node.name.value === '__schema') return 1 + this.count(node.selectionSet, { kind: 'Schema', value: this.schema });
    const nameArg = node.arguments?.find((a) => a.name.value === 'name')?.value;
    const name = nameArg ? valueFromAST(nameArg, this.schema.getType('String') as never, variables) : undefined;
    const type = typeof name === 'string' ? this.schema.getType(name) : undefined;
    return 1 + (type ? this.count(node.selectionSet, { kind: 'Type', value: type }) : 0);
  }

  private count(set: Selectable, object: MetaObject): number {
    let byObject = this.memo.get(set);
    if (!byObject) {
      byObject = new Map();
      this.memo.set(set, byObject);
    }
    const known = byObject.get(object.value);
    if (known !== undefined) return known;
    // past the cap the answer is refused anyway; stop counting
    if (++this.work > this.cap) return this.cap + 1;
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        total += 1;
        if (selection.selectionSet) {
          for (const child of this.children(object, selection.name.value)) total += this.count(selection.selectionSet, child);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        total += this.count(selection.selectionSet, object);
      } else {
        const fragment = this.fragments.get(selection.name.value);
        if (!fragment) continue;
        if (this.active.has(fragment.name.value)) throw new FragmentCycle(fragment.name.value);
        this.active.add(fragment.name.value);
        try {
          total += this.count(fragment.selectionSet, object);
        } finally {
          this.active.delete(fragment.name.value);
        }
      }
      if (total > this.cap) break;
    }
    byObject.set(object.value, total);
    return total;
  }

  /** The objects a meta field leads to (none for leaves and nulls). */
  private children(object: MetaObject, field: string): MetaObject[] {
    const of = (kind: Meta, values: readonly object[] | null | undefined): MetaObject[] => (values ?? []).map((value) => ({ kind, value }));
    switch (object.kind) {
      case 'Schema': {
        const schema = object.value as GraphQLSchema;
        if (field === 'types') return of('Type', Object.values(schema.getTypeMap()));
        if (field === 'directives') return of('Directive', schema.getDirectives());
        if (field === 'queryType' || field === 'mutationType' || field === 'subscriptionType') {
          const root = field === 'queryType' ? schema.getQueryType() : field === 'mutationType' ? schema.getMutationType() : schema.getSubscriptionType();
          return of('Type', root ? [root] : []);
        }
        return [];
      }
      case 'Type':
        return this.typeChildren(object.value as GraphQLType, field);
      case 'Field':
        if (field === 'args') return of('InputValue', (object.value as GraphQLField<unknown, unknown>).args);
        if (field === 'type') return of('Type', [(object.value as GraphQLField<unknown, unknown>).type]);
        return [];
      case 'InputValue':
        return field === 'type' ? of('Type', [(object.value as { type: GraphQLType }).type]) : [];
      case 'Directive':
        return field === 'args' ? of('InputValue', (object.value as { args: readonly object[] }).args) : [];
      default:
        return [];
    }
  }

  private typeChildren(type: GraphQLType, field: string): MetaObject[] {
    const of = (kind: Meta, values: readonly object[]): MetaObject[] => values.map((value) => ({ kind, value }));
    switch (field) {
      case 'fields':
        return isObjectType(type) || isInterfaceType(type) ? of('Field', Object.values(type.getFields())) : [];
      case 'interfaces':
        return isObjectType(type) || isInterfaceType(type) ? of('Type', type.getInterfaces()) : [];
      case 'possibleTypes':
        return isAbstractType(type) ? of('Type', this.schema.getPossibleTypes(type)) : [];
      case 'enumValues':
        return isEnumType(type) ? of('EnumValue', type.getValues()) : [];
      case 'inputFields':
        return isInputObjectType(type) ? of('InputValue', Object.values(type.getFields())) : [];
      case 'ofType':
        return isListType(type) || isNonNullType(type) ? of('Type', [type.ofType]) : [];
      default:
        return [];
    }
  }
}
