import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type DocumentNode, GraphQLError } from 'graphql';
import { createLRUCache, createYoga, type Plugin } from 'graphql-yoga';
import type { Core } from '../core/core.ts';
import type { LiveHub } from '../core/live/live-hub.ts';
import type { Ctx } from '../core/platform/ctx.ts';
import { refuseUnsafeInput } from '../core/platform/json-input.ts';
import type { GqlContext } from '../graphql/context.ts';
import { maskDomainErrors, shelfCodeOf, useShelfErrorCodes } from '../graphql/errors.ts';
import { schema } from '../graphql/index.ts';
import { isIntrospectionOnly } from '../graphql/introspection-only.ts';
import { JitQueries, useJitQueries } from '../graphql/jit.ts';
import { RememberedLimits, useQueryLimits } from '../graphql/query-limits.ts';
import type { Metrics } from '../observability/metrics.ts';
import { holdAnswer } from './answer-allowance.ts';
import { asDomainError, retryAfterOf, STATUS_OF } from './errors.ts';
import { answerQueryFast, type GraphqlParams } from './graphql-fast-path.ts';
import { serveStream, wantsEventStream } from './graphql-stream.ts';

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

/** What GraphiQL opens with: a first query, and how to send the key. */
export const GRAPHIQL_DEFAULT_QUERY = `# Shelf GraphQL. Put your API key in the Headers tab below:
#   { "Authorization": "Bearer <your API key>" }
# A frontend acting for a signed-in member adds "X-Shelf-Member": "<userId>".
# The Docs panel describes every type and field.
query FirstLook {
  brands(page: 1, pageSize: 5) {
    items { id name code }
    pagination { totalCount }
  }
}
`;

/** graphql-yoga at /graphql, mounted as one Fastify route; the same Bearer key authenticates. */
export async function graphqlRoute(app: FastifyInstance, { core, live, metrics }: { core: Core; live?: LiveHub; metrics?: Metrics }): Promise<void> {
  // yoga's parser cache (bounded LRU by query text, as yoga's default), held here so the context
  // reads the document yoga parsed instead of parsing the text again (isIntrospectionOnly), and
  // the fast path (graphql-fast-path.ts) finds the documents yoga has parsed
  const documents = createLRUCache<DocumentNode>();
  const limits = new RememberedLimits();
  const jit = new JitQueries();
  /** The context of an operation that reads data: the caller authenticated, the answer's allowance held. */
  const contextFor = async (req: FastifyRequest, reply: FastifyReply, params: Partial<GraphqlParams>): Promise<GqlContext> => {
    // variables and literals alike: a NUL character or variables nested too deep are refused before anything runs
    refuseUnsafeInput(params.variables ?? {}, 'variables');
    if (params.query?.includes('\u0000')) refuseUnsafeInput(params.query, 'query');
    const key = await core.access.authenticate(core.operatorCtx(), req.headers.authorization);
    // a frontend names the signed-in member it acts for (docs/access.md); without it the key acts
    const member = req.headers['x-shelf-member'];
    const actor = member === undefined ? key : await core.access.actForMember(core.operatorCtx(), key, Array.isArray(member) ? member[0] : member);
    const ctx = core.ctxFor(actor, req.id);
    // heavy reads admit their size against this answer (docs/graphql.md "Limits"); its leases on
    // the memory budget are held until the answer has been written or the client went away
    holdAnswer(ctx, reply, core.platform.answerBudget, core.config.graphqlMaxResponseBytes);
    return { core, ctx };
  };
  const yoga = createYoga<ServerContext, GqlContext>({
    schema,
    graphqlEndpoint: '/graphql',
    logging: false,
    maskedErrors: { maskError: maskDomainErrors },
    // the query limits are checked in validation and depend on the variables: a validation result
    // cached by document alone would let the same document through with larger page sizes, so
    // useQueryLimits keeps its own cache, behind the limits
    parserAndValidationCache: { documentCache: documents, validationCache: false },
    // Fastify has read the whole body, within its 1 MiB limit, before yoga runs (a larger one is
    // refused with 413 payload_too_large by sendGraphqlError): yoga's own 25 MB check would only
    // pipe that string through a TransformStream into a new Request on every request
    maxRequestBodySize: false,
    plugins: [useQueryLimits(limits), useJitQueries(jit), useUnsupportedMediaType(), useShelfErrorCodes()],
    // GraphiQL from the installed package: its scripts, styles and icon are inlined, so the page
    // loads nothing from another origin (offline, behind a proxy, under a strict CSP)
    renderGraphiQL,
    graphiql: core.config.graphiql
      ? { title: 'Shelf GraphQL', defaultQuery: GRAPHIQL_DEFAULT_QUERY, headers: '{\n  "Authorization": "Bearer <your API key>"\n}' }
      : false,
    context: async ({ req, reply, params }) => {
      // the schema is public: GraphiQL's Docs panel loads before a key is entered (no resolver of
      // an introspection-only operation reads ctx)
      if (isIntrospectionOnly(params.query, params.operationName, params.query ? documents.get(params.query) : undefined)) {
        refuseUnsafeInput(params.variables ?? {}, 'variables');
        if (params.query?.includes('\u0000')) refuseUnsafeInput(params.query, 'query');
        return { core, ctx: null as unknown as Ctx };
      }
      return contextFor(req, reply, { query: params.query, variables: params.variables ?? {}, operationName: params.operationName });
    },
  });

  const fast = { schema, documents, limits, jit, context: contextFor, fetchAPI: yoga.fetchAPI };

  // An encapsulated context: /graphql reads its own bodies (yoga parses JSON, so malformed JSON is a
  // GraphQL answer, not the /v1 envelope) and answers its own failures in GraphQL's shape.
  await app.register(async (gql) => {
    gql.removeAllContentTypeParsers();
    gql.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    // the GraphQL multipart request spec (uploadFile): the bytes reach yoga as they came, within the body limit
    gql.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    gql.setErrorHandler((error, request, reply) => sendGraphqlError(error, request, reply));
    gql.route({
      url: '/graphql',
      // every method reaches yoga, which answers the ones GraphQL has no use for (405) in its shape
      method: ['GET', 'POST', 'OPTIONS', 'PUT', 'PATCH', 'DELETE'],
      handler: async (req, reply) => {
        // subscriptions: server-sent events with positions, caps and drains of their own (graphql-stream.ts)
        if (live && wantsEventStream(req)) return serveStream(req, reply, { core, hub: live });
        // a query yoga has parsed and validated before: answered without yoga's request objects
        if (await answerQueryFast(req, reply, fast)) {
          metrics?.graphqlRequests.labels('fast').inc();
          return reply;
        }
        metrics?.graphqlRequests.labels('yoga').inc();
        const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
        response.headers.forEach((value, key) => {
          reply.header(key, value);
        });
        reply.status(response.status);
        // a single result is one serialized string: sent whole, with its Content-Length, in one
        // write (its ReadableStream went out in many chunked writes); a stream stays a stream
        reply.send(isStream(response) ? response.body : await response.text());
        return reply;
      },
    });
  });
}

/** Whether yoga answers with a stream of results (text/event-stream, multipart/mixed) rather than one body. */
function isStream(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return type.startsWith('text/event-stream') || type.startsWith('multipart/');
}

/** A request yoga has no parser for (text/plain, ...): refused in GraphQL's shape with 415, not an empty 415. */
function useUnsupportedMediaType(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (requestParser) return;
      setRequestParser(() => {
        throw new GraphQLError('POST /graphql takes Content-Type application/json (or application/graphql+json), or multipart/form-data for uploadFile.', {
          extensions: { code: 'validation_failed', http: { status: 415 } },
        });
      });
    },
  };
}

/**
 * A failure before yoga runs (the 1 MiB body limit, a broken Content-Length, anything unexpected)
 * as GraphQL's `errors[]` with Shelf's code; unknown errors are logged and never leak.
 */
export function sendGraphqlError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const domain = asDomainError(error);
  if (!domain) request.log.error({ err: error }, 'unhandled error');
  const code = domain?.code ?? 'internal_server_error';
  const message = domain?.message ?? 'Unexpected error.';
  // GraphQL answers a client's malformed request with 400 (yoga does), not REST's 422
  const status = code === 'validation_failed' ? 400 : STATUS_OF[code];
  const retryAfter = domain ? retryAfterOf(domain) : null;
  if (retryAfter) reply.header('Retry-After', retryAfter);
  return reply
    .status(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send({ errors: [{ message, extensions: { code: shelfCodeOf(code), ...(domain?.details ? { details: domain.details } : {}) } }] });
}
