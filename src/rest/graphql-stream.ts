import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionResult,
  executeSubscriptionEvent,
  GraphQLError,
  getOperationAST,
  parse,
  validate,
  validateSubscriptionArgs,
} from 'graphql';
import type { Logger } from 'pino';
import type { Core } from '../core/core.ts';
import type { LiveRow } from '../core/live/live-events.queries.ts';
import { LiveHub } from '../core/live/live-hub.ts';
import { type LiveSubscription, StreamEnded } from '../core/live/live-stream.ts';
import { keyOfStreamToken } from '../core/live/stream-tokens.ts';
import type { KeyActor } from '../core/platform/ctx.ts';
import { DomainError } from '../core/platform/errors.ts';
import { refuseUnsafeInput } from '../core/platform/json-input.ts';
import type { GqlContext } from '../graphql/context.ts';
import { maskDomainErrors, shelfCodeOf } from '../graphql/errors.ts';
import { schema } from '../graphql/index.ts';
import { bracketDepth, limitError, QUERY_LIMITS, refusalOf } from '../graphql/query-limits.ts';
import type { Metrics } from '../observability/metrics.ts';
import { STATUS_OF } from './errors.ts';

/** A request for a live update stream: GraphQL over SSE, "distinct connections" mode (one subscription per request). */
export function wantsEventStream(req: FastifyRequest): boolean {
  return (req.method === 'GET' || req.method === 'POST') && (req.headers.accept ?? '').includes('text/event-stream');
}

interface StreamParams {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | null;
  token: string | null;
}

function invalid(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'validation_failed' } });
}

function objectOrEmpty(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined || value === null || value === '') return {};
  const parsed = typeof value === 'string' ? safeJson(value, what) : value;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid(`${what} must be a JSON object.`);
  return parsed as Record<string, unknown>;
}

function safeJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalid(`${what} is not valid JSON.`);
  }
}

/** GET takes the query string (EventSource), POST a JSON body (graphql-sse and other SSE clients). */
function readParams(req: FastifyRequest): StreamParams {
  const source =
    req.method === 'GET' ? ((req.query ?? {}) as Record<string, unknown>) : objectOrEmpty(typeof req.body === 'string' ? req.body : undefined, 'The body');
  const query = source.query;
  if (typeof query !== 'string' || query === '') throw invalid('Send the subscription document as `query`.');
  const variables = objectOrEmpty(source.variables, 'variables');
  refuseUnsafeInput(variables, 'variables');
  if (query.includes('\u0000')) refuseUnsafeInput(query, 'query');
  const operationName = typeof source.operationName === 'string' && source.operationName !== '' ? source.operationName : null;
  const url = new URL(req.url, 'http://x');
  return { query, variables, operationName, token: url.searchParams.get('token') };
}

/** The document, measured against the query limits before GraphQL's own rules, as on the JSON endpoint (query-limits.ts). */
function checkedDocument(params: StreamParams): DocumentNode {
  const brackets = bracketDepth(params.query);
  if (brackets > QUERY_LIMITS.brackets) throw limitError('brackets', brackets);
  let document: DocumentNode;
  try {
    document = parse(params.query, { maxTokens: QUERY_LIMITS.tokens });
  } catch (e) {
    if (e instanceof GraphQLError && /contains more than \d+ tokens/.test(e.message)) throw limitError('tokens', null);
    throw e instanceof GraphQLError ? invalid(e.message) : e;
  }
  const refusal = refusalOf(schema, document, params.variables);
  if (refusal) throw refusal;
  const errors = validate(schema, document);
  if (errors.length > 0) throw invalid(errors[0]!.message);
  const operation = getOperationAST(document, params.operationName);
  if (!operation) throw invalid('Name the operation to run (operationName).');
  if (operation.operation !== 'subscription') {
    throw invalid('Only subscriptions are served as event streams; send queries and mutations with Accept: application/json.');
  }
  return document;
}

function authenticateStream(core: Core, req: FastifyRequest, token: string | null): Promise<KeyActor> {
  if (req.headers.authorization === undefined && token !== null) return keyOfStreamToken(core.operatorCtx(), core.config.linkSigningSecret!, token);
  return core.access.authenticate(core.operatorCtx(), req.headers.authorization);
}

/** An error as GraphQL's `errors[]` item with Shelf's code. */
function errorJson(error: unknown): { message: string; extensions: Record<string, unknown> } {
  const masked = error instanceof GraphQLError && !error.originalError ? error : maskDomainErrors(error, 'Unexpected error.');
  const json = (masked instanceof GraphQLError ? masked.toJSON() : { message: 'Unexpected error.', extensions: {} }) as {
    message: string;
    extensions?: Record<string, unknown>;
  };
  const extensions = { ...(json.extensions ?? {}) };
  delete extensions.http;
  extensions.code = shelfCodeOf(extensions.code ?? 'internal_server_error');
  return { message: json.message, extensions };
}

/** A refusal before the stream opens: HTTP status by code, GraphQL's `errors[]` body (docs/graphql.md "Live updates"). */
function refuse(reply: FastifyReply, error: unknown): FastifyReply {
  const item = errorJson(error);
  const code = item.extensions.code as keyof typeof STATUS_OF;
  const status = code === 'validation_failed' || String(code).startsWith('query_too') ? 400 : (STATUS_OF[code] ?? 500);
  const raw = error instanceof GraphQLError ? error.originalError : error;
  if (raw instanceof DomainError && raw.retryAfterSeconds) reply.header('Retry-After', String(raw.retryAfterSeconds));
  return reply
    .status(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send({ errors: [item] });
}

function resultJson(result: ExecutionResult): string {
  return JSON.stringify(result.errors ? { ...result, errors: result.errors.map(errorJson) } : result);
}

/**
 * Serves one subscription as a stream of server-sent events: `id:` the update's position (what
 * EventSource sends back as Last-Event-ID), `event: next` with the GraphQL result, a comment line
 * as heartbeat, and at the end either `event: complete` or a last `next` with the code that ended
 * it. A client that does not read is dropped once its buffer fills, never held in memory.
 */
export async function serveStream(req: FastifyRequest, reply: FastifyReply, deps: { core: Core; hub: LiveHub }): Promise<FastifyReply> {
  const { core, hub } = deps;
  let context: GqlContext;
  let iterator: AsyncIterator<LiveRow>;
  let render: (row: LiveRow) => Promise<string>;
  try {
    const params = readParams(req);
    const document = checkedDocument(params);
    const key = await authenticateStream(core, req, params.token);
    const lastEventId = typeof req.headers['last-event-id'] === 'string' ? req.headers['last-event-id'] : null;
    context = { core, ctx: core.ctxFor(key, req.id), live: { hub, lastEventId } };
    const args = validateSubscriptionArgs({ schema, document, variableValues: params.variables, operationName: params.operationName, contextValue: context });
    if (!('schema' in args)) return refuse(reply, args[0]);
    const source = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in source)) return refuse(reply, source.errors?.[0] ?? new Error('no stream'));
    iterator = (source as AsyncIterable<LiveRow>)[Symbol.asyncIterator]();
    const shareKey = `${key.role}\n${params.operationName ?? ''}\n${JSON.stringify(params.variables)}\n${params.query}`;
    render = (row) => renderShared(row, shareKey, () => executeSubscriptionEvent({ ...args, rootValue: row }));
  } catch (e) {
    return refuse(reply, e);
  }
  const stream = context.live!.stream!;
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': req.id,
  });
  // the reconnection delay EventSource waits after a stream ends, and the headers on their way
  res.write('retry: 1000\n\n');
  // a client that goes away ends its stream, which wakes the loop below
  res.on('close', () => stream.end(new StreamEnded('stream_closed', 'The client closed the stream.')));
  const heartbeat = setInterval(() => {
    if (!res.writableNeedDrain) res.write(':\n\n');
  }, hub.limits.heartbeatMs);
  heartbeat.unref();
  let ending: StreamEnded | null = null;
  try {
    // the iterator yields rows and throws StreamEnded when the stream ends (a closed client, a
    // revoked key, a drain, too many rows waiting): one promise per update, none left behind
    for (;;) {
      const step = await iterator.next();
      if (step.done) {
        res.write('event: complete\ndata:\n\n');
        break;
      }
      const data = await render(step.value);
      hub.metrics.sent.labels(stream.scope.stream).inc();
      if (!res.write(`id: ${step.value.position}\nevent: next\ndata: ${data}\n\n`)) {
        stream.setBlocked(true);
        await drainedOrEnded(res, stream);
        stream.setBlocked(false);
      }
    }
  } catch (e) {
    ending = e instanceof StreamEnded ? e : null;
    if (!ending) {
      req.log.error({ err: e }, 'live update stream failed');
      res.write(`event: next\ndata: ${JSON.stringify({ errors: [errorJson(e)] })}\n\nevent: complete\ndata:\n\n`);
    }
  } finally {
    clearInterval(heartbeat);
    if (ending && !res.destroyed) writeEnding(res, ending, hub);
    // a client that reads nothing keeps its last bytes for a while, not for ever
    if (ending?.code === 'slow_consumer') setTimeout(() => res.destroy(), 30_000).unref();
    stream.end(new StreamEnded('stream_closed', 'The stream was closed.'));
    void iterator.return?.().catch(() => {});
    res.end();
  }
  return reply;
}

/**
 * Each row is one object handed to every stream of its team on this process, and the update
 * types resolve from the row alone (never from the caller beyond its role, which picked the row):
 * streams with the same document, variables and role share one execution and one serialized
 * result per row, instead of running GraphQL once per stream (bench/RESULTS.md "Live updates").
 */
const shared = new WeakMap<LiveRow, Map<string, Promise<string>>>();

function renderShared(row: LiveRow, shareKey: string, execute: () => ExecutionResult | Promise<ExecutionResult>): Promise<string> {
  let byDocument = shared.get(row);
  if (!byDocument) {
    byDocument = new Map();
    shared.set(row, byDocument);
  }
  let text = byDocument.get(shareKey);
  if (!text) {
    text = Promise.resolve(execute()).then(resultJson);
    byDocument.set(shareKey, text);
  }
  return text;
}

/** Waits until a full connection takes writes again, closes, or the stream ends (then the next read throws why). */
function drainedOrEnded(res: NodeJS.WritableStream & { destroyed: boolean }, stream: LiveSubscription): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      stream.onEnd = null;
      resolve();
    };
    if (stream.isEnded || res.destroyed) return resolve();
    res.on('drain', done);
    res.on('close', done);
    stream.onEnd = done;
  });
}

/** The last message of a stream the server ends: its code; `complete` only where reconnecting cannot help (a revoked key). */
function writeEnding(res: NodeJS.WritableStream, ending: StreamEnded, hub: LiveHub): void {
  if (ending.code === 'stream_closed') return;
  if (ending.code === 'slow_consumer') hub.countDrop('slow_consumer');
  const reconnect = ending.code !== 'key_revoked';
  const error = { message: ending.message, extensions: { code: ending.code, reconnect } };
  res.write(`event: next\ndata: ${JSON.stringify({ errors: [error] })}\n\n`);
  if (!reconnect) res.write('event: complete\ndata:\n\n');
}

/**
 * Live updates of this API process (docs/graphql.md "Live updates"): the hub with its relay runs
 * while the app does; on close (SIGTERM) every stream ends first with `server_draining`.
 */
export function startLiveUpdates(app: FastifyInstance, deps: { core: Core; metrics: Metrics; logger?: FastifyBaseLogger }): LiveHub {
  const { config } = deps.core;
  const hub = new LiveHub({
    op: deps.core.operatorCtx(),
    redisUrl: config.redisUrl,
    prefix: config.queuePrefix,
    limits: config.live,
    registry: deps.metrics.registry,
    ...(deps.logger ? { logger: deps.logger as unknown as Logger } : {}),
  });
  hub.start();
  app.addHook('preClose', (done) => {
    hub.drain();
    done();
  });
  app.addHook('onClose', async () => hub.close());
  return hub;
}
