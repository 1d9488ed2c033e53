import { type DocumentNode, type FragmentDefinitionNode, GraphQLError, type GraphQLSchema, Kind, type OperationDefinitionNode, parse } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { FragmentCycle, QueryMeasure } from './query-cost.ts';

/**
 * The limits every GraphQL operation is measured against before anything runs (docs/graphql.md
 * "Limits"). Each sits above what the heaviest operation of the test suite and GraphiQL's
 * introspection measure (the numbers are in docs/graphql.md), and far below what hurts the process.
 */
export const QUERY_LIMITS = {
  /** Lexical tokens of the document (names, punctuation, values): bounds the work of every other check. */
  tokens: 10_000,
  /** Field nesting, root fields being 1: a whole 10-level category tree with leaves is 13. */
  depth: 15,
  /** Aliased fields in an operation (fragments counted where they are spread). */
  aliases: 30,
  /** Directives in an operation (fragments counted where they are spread). */
  directives: 50,
  /** The cost model's count of fields the answer can hold. */
  cost: 60_000,
  /** Brackets ({, [, () open at once in the document's text: list and object literals included. */
  brackets: 64,
} as const;

/** The `extensions.code` of each refusal; `validation_failed` is GraphQL's own refusals' (errors.ts). */
export const LIMIT_CODES = {
  tokens: 'query_too_long',
  depth: 'query_too_deep',
  aliases: 'query_too_many_aliases',
  directives: 'query_too_many_directives',
  cost: 'query_too_complex',
  brackets: 'query_too_deep',
} as const;

type Limit = keyof typeof QUERY_LIMITS;

const WHAT: Record<Limit, string> = {
  tokens: 'tokens',
  depth: 'levels of nesting',
  aliases: 'aliases',
  directives: 'directives',
  cost: 'cost',
  brackets: 'levels of nested brackets',
};

/** A refusal: a validation error (HTTP 400 under application/graphql-response+json) with the measure and the limit. */
export function limitError(limit: Limit, measured: number | null): GraphQLError {
  const max = QUERY_LIMITS[limit];
  const message =
    measured === null
      ? `The document has more than ${max} ${WHAT[limit]}, the limit.`
      : limit === 'cost'
        ? `The query costs ${measured}, more than the limit of ${max} (docs/graphql.md "Limits" gives the cost model).`
        : `The query has ${measured} ${WHAT[limit]}, more than the limit of ${max}.`;
  return new GraphQLError(message, {
    extensions: { code: LIMIT_CODES[limit], ...(measured === null ? {} : { measured }), limit: max, http: { spec: true, status: 400 } },
  });
}

/** Measures every operation of a document; the first limit one of them passes is the refusal, null when all are within. */
export function refusalOf(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): GraphQLError | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  const operations: OperationDefinitionNode[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    else if (definition.kind === Kind.OPERATION_DEFINITION) operations.push(definition);
  }
  const measure = new QueryMeasure(schema, fragments, variables, QUERY_LIMITS.cost);
  try {
    for (const operation of operations) {
      const shape = measure.shape(operation);
      if (shape.depth > QUERY_LIMITS.depth) return limitError('depth', shape.depth);
      if (shape.aliases > QUERY_LIMITS.aliases) return limitError('aliases', shape.aliases);
      if (shape.directives > QUERY_LIMITS.directives) return limitError('directives', shape.directives);
    }
    for (const operation of operations) {
      const cost = measure.cost(operation);
      if (cost > QUERY_LIMITS.cost) return limitError('cost', cost);
    }
  } catch (e) {
    if (!(e instanceof FragmentCycle)) throw e;
    return new GraphQLError(e.message, { extensions: { code: 'validation_failed', http: { spec: true, status: 400 } } });
  }
  return null;
}

/**
 * How deep the document's brackets nest, read from its text before parsing: graphql-js parses
 * recursively, so a list literal 3,000 levels deep (well within the token limit) exhausts the
 * stack. Strings, block strings and comments are skipped; the scan is one pass, no recursion.
 */
export function bracketDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i++;
    } else if (c === '"') {
      if (source.startsWith('"""', i)) {
        const end = source.indexOf('"""', i + 3);
        i = end === -1 ? source.length : end + 2;
      } else {
        for (i++; i < source.length && source[i] !== '"' && source[i] !== '\n'; i++) if (source[i] === '\\') i++;
      }
    } else if (c === '{' || c === '[' || c === '(') {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === '}' || c === ']' || c === ')') {
      depth--;
    }
  }
  return deepest;
}

function isTokenLimit(error: unknown): boolean {
  return error instanceof GraphQLError && /contains more than \d+ tokens/.test(error.message);
}

/** Documents whose variables' refusals are remembered; variables past this many characters (as JSON) are measured every time. */
const REMEMBERED_VARIABLES_CHARS = 2048;
/** Refusals remembered per document, one per set of variables (the oldest forgotten first). */
const REMEMBERED_PER_DOCUMENT = 64;

/**
 * What measuring and validating a document concluded, kept with the parsed document: yoga's parser
 * cache (a bounded LRU by query text) hands the same DocumentNode to every request sending the same
 * text, so a WeakMap keyed by it lives exactly as long as the parser cache keeps the document.
 */
interface Remembered {
  /** The refusal (or null) of a document without variables: it depends on the document alone. */
  refusal?: GraphQLError | null;
  /** Refusals by the variables' JSON, for a document with variables (page sizes are variables too). */
  byVariables?: Map<string, GraphQLError | null>;
  /** GraphQL's own validation result, by the rules it ran with: it never depends on the variables. */
  validation?: { rules: string; errors: readonly GraphQLError[] };
}

/** The variables as JSON, or null when they cannot be written (nested past what JSON.stringify's recursion takes: refused later, unremembered). */
function variablesKey(variables: Record<string, unknown>): string | null {
  try {
    return JSON.stringify(variables);
  } catch {
    return null;
  }
}

/**
 * The limits' refusal of a document with these variables, measured once per document (and set of
 * variables) and then remembered: the measure is a pure function of the schema, the document and
 * the variables, so a repeat is the same answer without walking the document again.
 */
function rememberedRefusal(remembered: Remembered, schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): GraphQLError | null {
  const hasVariables = document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && (d.variableDefinitions?.length ?? 0) > 0);
  if (!hasVariables) {
    if (remembered.refusal === undefined) remembered.refusal = refusalOf(schema, document, {});
    return remembered.refusal;
  }
  const key = variablesKey(variables);
  if (key === null || key.length > REMEMBERED_VARIABLES_CHARS) return refusalOf(schema, document, variables);
  remembered.byVariables ??= new Map();
  const known = remembered.byVariables.get(key);
  if (known !== undefined) return known;
  const refusal = refusalOf(schema, document, variables);
  if (remembered.byVariables.size >= REMEMBERED_PER_DOCUMENT) remembered.byVariables.delete(remembered.byVariables.keys().next().value!);
  remembered.byVariables.set(key, refusal);
  return refusal;
}

/**
 * What measuring and validating each parsed document concluded, kept with the document (a WeakMap:
 * it lives as long as yoga's parser cache keeps the document). One per route: the yoga plugin below
 * fills it, and the route's fast path for queries (rest/graphql-fast-path.ts) reads it.
 */
export class RememberedLimits {
  private readonly documents = new WeakMap<DocumentNode, Remembered>();

  entry(document: DocumentNode): Remembered {
    let remembered = this.documents.get(document);
    if (!remembered) {
      remembered = {};
      this.documents.set(document, remembered);
    }
    return remembered;
  }

  /**
   * Whether this document may run with these variables: within every limit (measured now, or
   * remembered), and passed by GraphQL's validation before. A document never validated, or refused,
   * answers false: yoga then validates it, or answers the refusal in its format.
   */
  admits(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): boolean {
    const remembered = this.entry(document);
    if (remembered.validation === undefined || remembered.validation.errors.length > 0) return false;
    return rememberedRefusal(remembered, schema, document, variables) === null;
  }
}

/**
 * The envelop plugin: the parser stops past the token limit, and the limits are checked before
 * GraphQL's own validation rules run (some of which, like overlapping-field checks, grow faster
 * than the document), so a refused operation costs only its measuring. The refusal depends on
 * the variables (page sizes), so yoga's validation cache stays off (graphql-route.ts): this plugin
 * keeps its own, checking the limits first on every request (remembered per document and
 * variables) and reusing GraphQL's validation result of a document only once the limits pass.
 */
export function useQueryLimits(limits = new RememberedLimits()): Plugin<{ params?: { variables?: unknown } }> {
  return {
    onParse({ setParseFn }) {
      setParseFn((source, options) => {
        const text = typeof source === 'string' ? source : source.body;
        const brackets = bracketDepth(text);
        if (brackets > QUERY_LIMITS.brackets) throw limitError('brackets', brackets);
        try {
          return parse(source, { ...options, maxTokens: QUERY_LIMITS.tokens });
        } catch (e) {
          throw isTokenLimit(e) ? limitError('tokens', null) : e;
        }
      });
    },
    onValidate({ params, context, setResult, validateFn, setValidationFn }) {
      const raw = context.params?.variables;
      const variables = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
      const remembered = limits.entry(params.documentAST);
      const refusal = rememberedRefusal(remembered, params.schema, params.documentAST, variables);
      if (refusal) {
        setResult([refusal]);
        return;
      }
      const rules = (params.rules as ReadonlyArray<{ name: string }> | undefined)?.map((rule) => rule.name).join(',') ?? '';
      const validation = remembered.validation;
      if (validation?.rules === rules) {
        setResult(validation.errors);
        return;
      }
      const entry = remembered;
      setValidationFn((...args) => {
        const errors = validateFn(...args);
        entry.validation = { rules, errors };
        return errors;
      });
    },
  };
}
