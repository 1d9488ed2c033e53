import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { type FetchAPI, processRegularResult } from 'graphql-yoga';
import type { GqlContext } from '../graphql/context.ts';
import { maskDomainErrors, withShelfCodes } from '../graphql/errors.ts';
import { isIntrospectionOnly } from '../graphql/introspection-only.ts';
import { type JitQueries, runCompiled } from '../graphql/jit.ts';
import type { RememberedLimits } from '../graphql/query-limits.ts';

/** A request's GraphQL parameters, as yoga hands them to the context. */
export interface GraphqlParams {
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
}

/** What the fast path shares with the route's yoga: the caches yoga fills, the context it builds, its Fetch API. */
export interface FastPath {
  schema: GraphQLSchema;
  /** yoga's parser cache: a document is here once yoga has parsed its text. */
  documents: { get(query: string): DocumentNode | undefined };
  limits: RememberedLimits;
  jit: JitQueries;
  context(req: FastifyRequest, reply: FastifyReply, params: GraphqlParams): Promise<GqlContext>;
  fetchAPI: FetchAPI;
}

/** The body of a GraphQL POST yoga accepts; any other key is yoga's to refuse. */
const PARAMS = new Set(['query', 'variables', 'operationName', 'extensions']);
/** yoga's message for an error it masks (its default, which Shelf keeps). */
const MASKED_MESSAGE = 'Unexpected error.';

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Answers a POST of a JSON query without yoga's per-request Request and Response objects, its
 * envelop hooks and its result pipeline (docs/graphql.md "Performance"), when yoga has already
 * seen the document: parsed (its parser cache holds it), validated without errors, within every
 * limit of docs/graphql.md "Limits" with these variables (query-limits.ts: measured or remembered,
 * before anything runs), a query operation graphql-jit compiled. It builds the same context
 * (authentication included), runs the same compiled query and writes one JSON body, with the
 * status, content type and error masking and codes yoga gives.
 *
 * Anything else answers false before any work with an effect, and yoga serves the request as
 * before: the first request of a document, a refusal, mutations and subscriptions, GraphiQL and
 * GET, uploads, batches, malformed bodies, an Accept that yoga answers with a stream, a request
 * with an Origin (yoga adds CORS headers), introspection without a key. A context that fails (a
 * bad key) also answers false: yoga builds it again, only reads, and answers its error.
 */
export async function answerQueryFast(req: FastifyRequest, reply: FastifyReply, fast: FastPath): Promise<boolean> {
  if (req.method !== 'POST' || typeof req.body !== 'string' || req.headers.origin !== undefined) return false;
  if (!isJsonType(req.headers['content-type'])) return false;
  const mediaType = regularMediaType(req.headers.accept);
  if (!mediaType) return false;
  let body: unknown;
  try {
    body = JSON.parse(req.body);
  } catch {
    return false;
  }
  if (!isPlainObject(body)) return false;
  for (const key in body) if (!PARAMS.has(key)) return false;
  const { query, variables, operationName, extensions } = body;
  if (typeof query !== 'string' || (operationName != null && typeof operationName !== 'string')) return false;
  if (variables != null && !isPlainObject(variables)) return false;
  if (extensions != null && (!isPlainObject(extensions) || Object.keys(extensions).length > 0)) return false;
  const document = fast.documents.get(query);
  if (!document) return false;
  const compiled = fast.jit.compiledFor(fast.schema, document, operationName);
  if (!compiled) return false;
  const vars = variables ?? {};
  if (!fast.limits.admits(fast.schema, document, vars)) return false;
  if (isIntrospectionOnly(query, operationName ?? undefined, document)) return false;

  const params: GraphqlParams = { query, variables: vars, ...(operationName != null ? { operationName } : {}) };
  let context: GqlContext;
  try {
    context = await fast.context(req, reply, params);
  } catch {
    return false;
  }
  const result = await runCompiled(compiled, undefined, { req, reply, params, ...context }, vars);
  if (!result.errors?.length) {
    reply.status(200).header('content-type', `${mediaType}; charset=utf-8`).send(JSON.stringify(result));
    return true;
  }
  const masked: ExecutionResult = { ...result, errors: result.errors.map((error) => maskLogged(req, error) as GraphQLError) };
  withShelfCodes(masked);
  // an answer with errors takes yoga's own writer: its status (200 or the errors' HTTP status), headers and body
  const response = processRegularResult(masked, fast.fetchAPI, mediaType);
  response.headers.forEach((value, key) => {
    reply.header(key, value);
  });
  reply.status(response.status).send(await response.text());
  return true;
}

/** An error as yoga's masking leaves it (domain errors keep their code, others are masked); a masked one is logged. */
function maskLogged(req: FastifyRequest, error: Error): Error {
  const masked = maskDomainErrors(error, MASKED_MESSAGE);
  if (masked !== error && masked.message === MASKED_MESSAGE && error.message !== MASKED_MESSAGE) req.log.error({ err: error }, 'unhandled GraphQL error');
  return masked;
}

/** A JSON body as yoga's POST parser takes it. */
function isJsonType(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || type === 'application/graphql+json';
}

/** yoga's result processors for a single result, in its order; the last match wins. */
const PROCESSORS: Array<{ regular: boolean; types: string[] }> = [
  { regular: false, types: ['text/event-stream'] },
  { regular: false, types: ['multipart/mixed'] },
  { regular: true, types: ['application/graphql-response+json', 'application/json'] },
];

/**
 * The media type yoga answers a single result with, by the same choice as its result processors
 * (graphql-yoga use-result-processor.ts, accept.ts), or null when that choice is a stream
 * (text/event-stream, multipart/mixed) or nothing matches: yoga's to answer.
 */
export function regularMediaType(accept: string | undefined): string | null {
  const asked: string[] = [];
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = entry.split(';');
    if (type === undefined) continue;
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    if (charset === 'charset=utf-8') asked.push(type);
  }
  asked.reverse();
  let chosen: { regular: boolean; type: string } | null = null;
  for (const processor of PROCESSORS) {
    for (const want of asked) {
      for (const type of processor.types) if (matches(type, want)) chosen = { regular: processor.regular, type };
    }
  }
  return chosen?.regular ? chosen.type : null;
}

function matches(offered: string, asked: string): boolean {
  const [offeredType, offeredSub] = offered.split('/');
  const [type, sub] = asked.split('/');
  return (type === '*' || type === offeredType) && (sub === '*' || sub === offeredSub);
}
