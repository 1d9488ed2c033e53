import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import ajvCompiler from '@fastify/ajv-compiler';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { FastifyValidationResult } from 'fastify/types/schema.js';
import type { Core } from '../core/core.ts';
import { DomainError } from '../core/platform/errors.ts';
import { refuseUnsafeInput } from '../core/platform/json-input.ts';
import { isStorableTimestamp } from '../core/platform/timestamps.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Queues } from '../queues.ts';
import { SHELF_VERSION, VERSION_HEADER } from '../version.ts';
import { sendApprovalError } from './approval-envelope.ts';
import { authenticate } from './auth.ts';
import { answerClientError, answerUnmetExpectation, areaOf } from './client-errors.ts';
import { sendError } from './errors.ts';
import { graphqlRoute, sendGraphqlError } from './graphql-route.ts';
import { startLiveUpdates } from './graphql-stream.ts';
import { admitHeavyBodies } from './heavy-bodies.ts';
import { envelopeArea, openArea } from './open-area.ts';
import { sendOpenError } from './open-envelope.ts';
import { openApiInfo } from './openapi.ts';
import { answerRefusedBodiesBeforeClosing } from './refused-body.ts';
import { activityResource } from './routes/activity.ts';
import { approvalResource } from './routes/approval.ts';
import { assetResource } from './routes/assets.ts';
import { brandResource } from './routes/brands.ts';
import { categoryResource } from './routes/categories.ts';
import { downloadResource } from './routes/downloads.ts';
import { fileRoutes } from './routes/files.ts';
import { openSearchResource } from './routes/open-search.ts';
import { openSubscriptionResource } from './routes/open-subscriptions.ts';
import { productShareResource } from './routes/product-shares.ts';
import { productTemplateUpgradeResource } from './routes/product-template-upgrades.ts';
import { productResource } from './routes/products.ts';
import { sharePageRoutes } from './routes/share-page.ts';
import { systemRoutes } from './routes/system.ts';
import { templateResource } from './routes/templates.ts';
import { uploadRoutes } from './routes/uploads.ts';
import { sharedSchemas } from './schemas.ts';
import { nullableAwareSerializerFactory } from './serializer.ts';
import { FAVICON_SVG } from './share-page/favicon.ts';

/** Spec 8: 1 MiB on every request, GET included. */
export const BODY_LIMIT = 1_048_576;

/** Reads a body Fastify will not parse, failing past the limit; gives an empty stream in its place. */
async function countAndDrop(payload: AsyncIterable<Buffer>): Promise<Readable> {
  let seen = 0;
  for await (const chunk of payload) {
    seen += chunk.length;
    if (seen > BODY_LIMIT) throw new DomainError('payload_too_large', 'The request body is larger than 1 MiB');
  }
  return Readable.from([]);
}

export interface AppDeps {
  core: Core;
  queues: Queues;
  metrics: Metrics;
  /** A pino logger; without one the app logs nothing (tests). */
  logger?: FastifyBaseLogger;
  /** false: no live updates (no relay running beside the requests), for tests that count a request's SQL statements. */
  liveUpdates?: boolean;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Ajv coerces the text `Infinity` in a path or query string to a number its `integer` and
 * `maximum` checks let through; such a value is refused like any other invalid one.
 */
function finiteNumbersOnly(validate: FastifyValidationResult): FastifyValidationResult {
  const checked = (data: unknown): boolean => {
    const valid = (validate as (data: unknown) => unknown)(data);
    const errors = (validate as { errors?: unknown[] | null }).errors ?? null;
    const infinite = data !== null && typeof data === 'object' ? Object.entries(data).filter(([, v]) => typeof v === 'number' && !Number.isFinite(v)) : [];
    checked.errors =
      infinite.length === 0
        ? errors
        : [...(errors ?? []), ...infinite.map(([key]) => ({ instancePath: `/${key}`, keyword: 'maximum', params: {}, message: 'must be a finite integer' }))];
    return valid === true && infinite.length === 0;
  };
  checked.errors = null as unknown[] | null;
  return checked as unknown as FastifyValidationResult;
}

/** The resources of each area, one line each: a new resource is a routes file and a line here. */
const V1_RESOURCES = [
  brandResource,
  categoryResource,
  templateResource,
  productResource,
  assetResource,
  activityResource,
  downloadResource,
  productShareResource,
  productTemplateUpgradeResource,
];
const OPEN_RESOURCES = [openSearchResource, openSubscriptionResource];
const APPROVAL_RESOURCES = [approvalResource];

/**
 * Builds the HTTP server: Area A under /v1, GraphQL, OpenAPI and docs, health and metrics.
 * Every route shares the conventions wired here once: request ids, Cache-Control, the body
 * limit, the error envelope and authentication.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    bodyLimit: BODY_LIMIT,
    // template ids are strings of up to 128 characters (spec 4.1): longer ones must reach the route's
    // schema (422), not the router's default 100-character cut-off (414)
    routerOptions: { maxParamLength: 1024 },
    // router-level failures (a path parameter past maxParamLength, a malformed URL) get the envelope
    // of the area the path names too
    frameworkErrors: (error, request, reply) => {
      reply.header('X-Request-Id', request.id);
      reply.header('Cache-Control', 'no-store');
      reply.header(VERSION_HEADER, SHELF_VERSION);
      const area = areaOf(request.url);
      (area === 'open' ? sendOpenError : area === 'approval' ? sendApprovalError : area === 'graphql' ? sendGraphqlError : sendError)(error, request, reply);
    },
    // an HTTP/1.1 request without Host is refused in onRequest, in its area's envelope, rather than
    // by Node with a bare 400
    http: { requireHostHeader: false },
    // genReqId reads X-Request-Id itself, so an unusable client value is replaced rather than echoed
    requestIdHeader: false,
    // a client's id is kept when it is sane, so logs can be correlated across systems
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    // a request head over Node's limit never reaches a route: answered in its area's envelope
    clientErrorHandler: answerClientError,
    // responses: nullable unions serialized without running their branch validators (serializer.ts)
    schemaController: { compilersFactory: { buildSerializer: nullableAwareSerializerFactory } },
  });

  // Many SDKs send `Content-Type: application/json` with an empty body on POSTs that take none
  // (publish, unpublish): an empty or blank JSON body is no body. Operations that need one say so
  // through the core's input check, as for a request without a body at all.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    parseJson(request, body as string, done);
  });

  // an Expect other than 100-continue is answered in the area's envelope rather than Node's bare 417
  app.server.on('checkExpectation', answerUnmetExpectation);

  // Bodies are validated by the core (the same compiled check serves GraphQL and the CLI), so that
  // a caller without the role gets 403 before 422; route body schemas feed the OpenAPI document.
  // query strings and headers run the core's timestamp rule for `format: date-time`, as compileInput does
  const compileWithAjv = ajvCompiler()(
    {},
    {
      customOptions: { removeAdditional: false, coerceTypes: true, allErrors: true, useDefaults: true },
      onCreate: (ajv) => ajv.addFormat('date-time', { type: 'string', validate: isStorableTimestamp }),
    },
  );
  app.setValidatorCompiler((route) => (route.httpPart === 'body' ? () => true : finiteNumbersOnly(compileWithAjv(route))));

  for (const schema of [...sharedSchemas, ...[...V1_RESOURCES, ...OPEN_RESOURCES, ...APPROVAL_RESOURCES].flatMap((r) => r.schemas)]) app.addSchema(schema);

  // The per-request hooks take callbacks rather than being async: they run on every request, and
  // their promises cost ~9 µs per request in a Fastify microbenchmark (bench/RESULTS-brands.md).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    reply.header('Cache-Control', 'no-store');
    reply.header(VERSION_HEADER, SHELF_VERSION);
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      return done(new DomainError('bad_request', 'The request is not valid HTTP/1.1', [{ field: 'Host', message: 'is required in HTTP/1.1' }]));
    }
    const length = Number(request.headers['content-length'] ?? 0);
    // routes that stream large bodies (uploads) name their own limit
    const limit = request.routeOptions.bodyLimit ?? BODY_LIMIT;
    if (length <= limit) return done();
    done(
      new DomainError('payload_too_large', limit === BODY_LIMIT ? 'The request body is larger than 1 MiB' : `The request body is larger than ${limit} bytes`),
    );
  });

  admitHeavyBodies(app, deps.core.platform.answerBudget, BODY_LIMIT);

  // Fastify reads no body on GET, HEAD and DELETE without a parser; count it anyway so the
  // limit holds for chunked bodies too, then drop it. A request announcing no body (neither
  // Content-Length nor Transfer-Encoding) has none under HTTP/1.1: nothing to count.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return done(null, payload);
    if (request.headers['transfer-encoding'] === undefined && !(Number(request.headers['content-length'] ?? 0) > 0)) return done(null, payload);
    countAndDrop(payload).then((empty) => done(null, empty), done);
  });

  // a NUL character (PostgreSQL cannot store it) or nesting past MAX_INPUT_DEPTH reaches no route;
  // each area's envelope answers it as its validation failure naming the field
  app.addHook('preValidation', (request, _reply, done) => {
    // GraphQL answers in its own format (graphql-route.ts checks variables and literals)
    if (request.routeOptions.url === '/graphql') return done();
    try {
      refuseUnsafeInput(request.query);
      refuseUnsafeInput(request.params);
      refuseUnsafeInput(request.body);
      done();
    } catch (e) {
      done(e as Error);
    }
  });

  answerRefusedBodiesBeforeClosing(app);

  app.addHook('onResponse', (request, reply, done) => {
    deps.metrics.httpDuration.labels(request.method, request.routeOptions.url ?? 'unmatched', String(reply.statusCode)).observe(reply.elapsedTime / 1000);
    done();
  });

  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendError(new DomainError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`), request, reply),
  );

  await app.register(swagger, openApiInfo(deps.core.config));
  // Shelf's reference page: its own title and icon, and Swagger UI's BaseLayout (the standalone
  // layout's top bar carries Swagger's brand and an "Explore" box for loading other documents)
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { url: '/v1/openapi.json', layout: 'BaseLayout' },
    theme: {
      title: 'Shelf API reference',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(FAVICON_SVG) }],
      css: [{ filename: 'shelf.css', content: '.swagger-ui .info { margin: 32px 0 16px; } .swagger-ui .info .title { color: #0a58ca; }' }],
    },
  });

  await app.register(systemRoutes, { deps });
  // signed media links: the signature is the credential, so they sit outside the Bearer-authenticated /v1
  await app.register(fileRoutes, { core: deps.core });
  await app.register(sharePageRoutes, { core: deps.core });
  await app.register(
    async (v1) => {
      authenticate(v1, deps.core);
      for (const resource of V1_RESOURCES) await v1.register(resource.routes, { core: deps.core });
    },
    { prefix: '/v1' },
  );
  // Areas B and C (CONTRACT.md {open_url}): the open envelope and its own error mapping
  await app.register(openArea(OPEN_RESOURCES.map((r) => r.routes)), { prefix: '/open', core: deps.core });
  // Area D (CONTRACT.md {approval_url}): the same Bearer key, its own envelope of spec 7.3
  await app.register(envelopeArea({ routes: APPROVAL_RESOURCES.map((r) => r.routes), auth: 'bearer', sendError: sendApprovalError }), {
    prefix: '/approval',
    core: deps.core,
  });
  // uploads (tus and one-request) read their own bodies and answer browsers' preflights without a key
  await app.register(uploadRoutes, { prefix: '/v1', core: deps.core });
  await app.register(graphqlRoute, { core: deps.core, metrics: deps.metrics, ...(deps.liveUpdates === false ? {} : { live: startLiveUpdates(app, deps) }) });

  return app;
}
