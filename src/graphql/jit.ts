import { type DocumentNode, type ExecutionArgs, type ExecutionResult, GraphQLError, type GraphQLSchema, getOperationAST } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

/** Compiled operations of one document, by operation name ('' for the only one). */
type Compiled = Map<string, CompiledQuery | null>;

/**
 * Runs query operations through graphql-jit instead of graphql-js's executor (docs/graphql.md
 * "Performance"): an operation is compiled once into plain functions that call the same resolvers
 * with the same context, arguments and null/error propagation, but without graphql-js's per-field
 * promises and objects, which dominated the CPU and the garbage collection of large pages.
 *
 * Compiled operations live beside yoga's parser cache (a bounded LRU by query text that hands the
 * same DocumentNode to every request sending the same text): a WeakMap keyed by the document
 * frees them with it. Only queries are compiled; mutations and subscriptions, and any operation
 * graphql-jit cannot compile, keep graphql-js. Execution starts after parsing, the limits
 * (query-limits.ts), validation and the context, as before.
 */
export class JitQueries {
  private readonly documents = new WeakMap<DocumentNode, Compiled>();

  /** The compiled query operation of a document (once per document and operation name); null for anything else. */
  compiledFor(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): CompiledQuery | null {
    let byName = this.documents.get(document);
    if (!byName) {
      byName = new Map();
      this.documents.set(document, byName);
    }
    const name = operationName ?? '';
    if (byName.has(name)) return byName.get(name)!;
    const operation = getOperationAST(document, operationName);
    let compiled: CompiledQuery | null = null;
    if (operation?.operation === 'query') {
      const result = compileQuery(schema, document, operationName ?? undefined, { disablingCapturingStackErrors: true });
      if (isCompiledQuery(result)) compiled = result;
    }
    byName.set(name, compiled);
    return compiled;
  }
}

/** Runs a compiled query, its errors as graphql-js's (withGraphqlErrors). */
export function runCompiled(
  compiled: CompiledQuery,
  rootValue: unknown,
  context: unknown,
  variables: Record<string, unknown>,
): ExecutionResult | Promise<ExecutionResult> {
  const result = compiled.query(rootValue, context, variables);
  return result instanceof Promise ? result.then(withGraphqlErrors) : withGraphqlErrors(result);
}

export function useJitQueries(jit = new JitQueries()): Plugin {
  return {
    onExecute({ args, setExecuteFn }) {
      const compiled = jit.compiledFor(args.schema, args.document, args.operationName);
      if (!compiled) return;
      const execute = (run: ExecutionArgs) => runCompiled(compiled, run.rootValue, run.contextValue, (run.variableValues ?? {}) as Record<string, unknown>);
      setExecuteFn(execute as Parameters<typeof setExecuteFn>[0]);
    },
  };
}

/**
 * What graphql-jit reports an error as: its own error function's objects, not graphql-js's class,
 * or (variables that do not coerce) a GraphQLError built with graphql-js 16's positional
 * arguments, which graphql 17 reads as no options: no extensions object.
 */
interface JitError {
  message: string;
  locations?: ReadonlyArray<{ line: number; column: number }>;
  path?: ReadonlyArray<string | number>;
  originalError?: Error | null;
  extensions?: Record<string, unknown>;
}

/**
 * graphql-jit's errors as graphql-js's GraphQLError, with the same message, path, locations,
 * extensions and originalError: yoga's masking and Shelf's error codes (errors.ts) recognise a
 * GraphQLError by its class and read its extensions, so a domain error keeps its code and a
 * variable that does not coerce stays validation_failed, exactly as under graphql-js.
 */
function withGraphqlErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length || result.errors.every(isWhole)) return result;
  const errors = result.errors.map((raw) => {
    if (isWhole(raw)) return raw as GraphQLError;
    const e = raw as unknown as JitError;
    const error = new GraphQLError(e.message, { path: e.path, originalError: e.originalError ?? undefined, extensions: e.extensions });
    if (e.locations?.length) Object.assign(error, { locations: e.locations });
    return error;
  });
  return { ...result, errors };
}

/** A GraphQLError as graphql-js builds it: its class, and an extensions object. */
function isWhole(error: unknown): boolean {
  return error instanceof GraphQLError && typeof error.extensions === 'object' && error.extensions !== null;
}
