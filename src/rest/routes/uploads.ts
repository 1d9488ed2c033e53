import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CHECKSUM_ALGORITHMS } from '../../core/assets/uploads/uploads.schemas.ts';
import type { Core } from '../../core/core.ts';
import type { Ctx } from '../../core/platform/ctx.ts';
import { DomainError, invalid } from '../../core/platform/errors.ts';
import { failure, ok, okSchema } from '../envelope.ts';
import { sendError } from '../errors.ts';
import { bearerSecurity, commonErrors, ErrorRef } from '../schemas.ts';
import {
  byteCount,
  CORS_HEADERS,
  checksumOf,
  headerOf,
  placementOf,
  placementOfMetadata,
  TUS_EXTENSIONS,
  TUS_STATUS,
  TUS_VERSION,
  tusBody,
  tusHeaders,
  tusRefusal,
} from '../tus-headers.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The raw body of an upload route, untouched by any parser (uploads.ts). */
    uploadBody: Readable | null;
  }
}

const UploadViewSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The upload id; its URL is /v1/uploads/{id}.' }),
    length: Type.Integer({ description: 'Upload-Length: the size of the file in bytes.' }),
    offset: Type.Integer({ description: 'Upload-Offset: the bytes received so far.' }),
    status: Type.Union([Type.Literal('receiving'), Type.Literal('completed')], {
      description: 'receiving until the last byte; completed once the file is placed.',
    }),
    expiresAt: Type.String({ format: 'date-time', description: 'When an upload still receiving expires (each PATCH moves it on).' }),
    metadataHeader: Type.Union([Type.String(), Type.Null()], { description: 'Upload-Metadata as sent at creation.' }),
    result: Type.Union(
      [
        Type.Object({
          fileId: Type.Union([Type.Integer(), Type.Null()], { description: 'The new file-path ID; null when held as pending inbound.' }),
          assetId: Type.Union([Type.Integer(), Type.Null()], { description: 'The stored object id; null when pending.' }),
          folderIds: Type.Array(Type.Integer(), { description: 'Folder ids from the root down; [] at the root or when pending.' }),
          pendingIds: Type.Array(Type.Integer(), { description: 'Pending inbound ids when the upload was pending; [] otherwise.' }),
        }),
        Type.Null(),
      ],
      { description: 'What the upload became; null until completed.' },
    ),
  },
  { $id: 'UploadView' },
);

const idParams = Type.Object({ id: Type.String({ description: 'The upload id (from Location).' }) });
const tags = ['Uploads'];
const tusHeaderSchema = Type.Object({ 'tus-resumable': Type.Optional(Type.String({ description: 'Must be 1.0.0.' })) });

const OneRequestQuery = Type.Object(
  {
    folder: Type.Optional(Type.String({ description: 'Folder path like /a/b, created as needed; "/" or omitted is the library root.' })),
    name: Type.Optional(Type.String({ description: 'File name (POST); PUT takes it from the path.' })),
    tags: Type.Optional(Type.String({ description: 'Tag names, comma-separated.' })),
    description: Type.Optional(Type.String({ description: 'Description.' })),
    score: Type.Optional(Type.String({ description: 'Rating 0-5.' })),
    link: Type.Optional(Type.String({ description: 'An http(s) web page URL.' })),
    pending: Type.Optional(Type.String({ description: 'true: hold as pending inbound (asset import --pending).' })),
    versionOf: Type.Optional(Type.String({ description: 'A file-path ID: make the upload the newest version of its line (asset import --version-of).' })),
    cover: Type.Optional(Type.String({ description: 'true with versionOf: the new version becomes the cover.' })),
  },
  { additionalProperties: false },
);

/**
 * Uploads over HTTP (docs/library.md "Uploads"): the tus 1.0 protocol under /v1/uploads (core,
 * creation, creation-with-upload, termination, expiration, checksum) and the one-request upload.
 * Its own context: the bodies are streamed to the core untouched (no parser, no 1 MiB limit: the
 * upload size limit instead), OPTIONS answers browsers' preflights without a key, every answer
 * carries Tus-Resumable and the CORS headers, and tus refusals have tus's statuses.
 */
export async function uploadRoutes(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const bodyLimit = core.config.uploadMaxFileBytes;
  app.decorateRequest('uploadBody', null);
  app.decorateRequest('ctx', null as unknown as Ctx);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    request.uploadBody = payload as Readable;
    done(null, undefined);
  });
  app.addSchema(UploadViewSchema);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('Tus-Resumable', TUS_VERSION);
    reply.headers(CORS_HEADERS);
    if (request.method === 'OPTIONS') return;
    const tus = request.routeOptions.config as { tus?: boolean };
    const version = headerOf(request, 'tus-resumable');
    if (tus.tus && version !== TUS_VERSION) {
      reply.header('Tus-Version', TUS_VERSION);
      throw tusRefusal('tus_version_unsupported', `Tus-Resumable must be ${TUS_VERSION}`);
    }
    const key = await core.access.authenticate(core.operatorCtx(), request.headers.authorization);
    const member = headerOf(request, 'x-shelf-member');
    const actor = member === undefined ? key : await core.access.actForMember(core.operatorCtx(), key, member);
    request.ctx = core.ctxFor(actor, request.id);
  });

  app.setErrorHandler((error, request, reply) => {
    const reason = error instanceof DomainError ? error.reason : undefined;
    const status = reason === undefined ? undefined : TUS_STATUS[reason];
    if (status === undefined) return sendError(error, request, reply);
    return reply.status(status).send(failure(request.id, reason!, (error as Error).message));
  });

  app.options(
    '/uploads',
    {
      schema: {
        operationId: 'uploadOptions',
        summary: 'tus discovery',
        description: `The tus 1.0 server's capabilities: Tus-Version ${TUS_VERSION}, Tus-Extension (${TUS_EXTENSIONS}), Tus-Max-Size (the per-file limit), Tus-Checksum-Algorithm (${CHECKSUM_ALGORITHMS.join(',')}). No key needed (browsers send it as their CORS preflight). 204.`,
        tags,
        response: { 204: Type.Null({ description: 'The headers say it.' }), 500: ErrorRef, 503: ErrorRef },
      },
    },
    async (_request, reply) => discovery(reply, bodyLimit),
  );
  app.options(
    '/uploads/:id',
    {
      schema: {
        operationId: 'uploadOptionsOfUpload',
        summary: 'tus discovery (preflight of an upload URL)',
        description: "As OPTIONS /v1/uploads, for a browser's preflight of a PATCH, HEAD or DELETE on an upload. 204.",
        tags,
        params: idParams,
        response: { 204: Type.Null({ description: 'The headers say it.' }), 500: ErrorRef, 503: ErrorRef },
      },
    },
    async (_request, reply) => discovery(reply, bodyLimit),
  );

  app.post(
    '/uploads',
    {
      bodyLimit,
      config: { tus: true },
      schema: {
        operationId: 'createUpload',
        summary: 'Create a resumable upload (tus creation)',
        description:
          'tus 1.0 creation: Upload-Length (bytes; required), Upload-Metadata (filename or name, folder, tags, description, score, link, pending, versionOf, cover; base64 values; filetype and other keys are ignored: the type is read from the bytes). Answers 201 with Location /v1/uploads/{id} and Upload-Expires. With a body of Content-Type application/offset+octet-stream (creation-with-upload) the first bytes are taken at once and Upload-Offset says how many. A zero-byte upload is complete at creation. Needs the editable role (library:edit). Failures: 400 (headers), 401, 403, 412 (Tus-Resumable not 1.0.0), 413 (over the file limit or the team quota, before any byte), 415, 422 (placement: folder path, name, tags, ...).',
        tags,
        security: bearerSecurity,
        headers: tusHeaderSchema,
        response: { 201: Type.Null({ description: 'Created; see Location.' }), 412: ErrorRef, 415: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      const length = headerOf(request, 'upload-defer-length') !== undefined ? deferRefused() : byteCount(request, 'Upload-Length');
      const metadataHeader = headerOf(request, 'upload-metadata') ?? null;
      const placement = placementOfMetadata(metadataHeader ?? undefined);
      const withBody = request.uploadBody !== null;
      const body = withBody ? tusBody(request) : null;
      const checksum = withBody ? checksumOf(request) : null;
      let view = await core.assets.uploads.create(request.ctx, { length, placement, metadataHeader });
      reply.header('Location', `/v1/uploads/${view.id}`);
      if (body && view.status === 'receiving') view = await core.assets.uploads.append(request.ctx, view.id, { offset: 0, body, checksum });
      tusHeaders(reply, view);
      return reply.status(201).send();
    },
  );

  app.route({
    method: 'HEAD',
    url: '/uploads/:id',
    config: { tus: true },
    schema: {
      operationId: 'uploadOffset',
      summary: 'Where an upload stands (tus HEAD)',
      description:
        "Upload-Offset (bytes received: resume from there), Upload-Length, Upload-Metadata as sent, Upload-Expires; Cache-Control no-store. 404 for an unknown upload or another team's, 410 for one that expired before its last byte, 412 when Tus-Resumable is not 1.0.0.",
      tags,
      security: bearerSecurity,
      params: idParams,
      response: { 200: Type.Null({ description: 'The headers say it.' }), 410: ErrorRef, 412: ErrorRef, ...commonErrors },
    },
    handler: async (request, reply) => {
      const view = await core.assets.uploads.status(request.ctx, (request.params as { id: string }).id);
      reply.header('Upload-Length', String(view.length));
      if (view.metadataHeader !== null) reply.header('Upload-Metadata', view.metadataHeader);
      tusHeaders(reply, view);
      return reply.status(200).send();
    },
  });

  app.patch(
    '/uploads/:id',
    {
      bodyLimit,
      config: { tus: true },
      schema: {
        operationId: 'appendToUpload',
        summary: 'Send bytes of an upload (tus PATCH)',
        description:
          'Content-Type application/offset+octet-stream (415 otherwise), Upload-Offset equal to the upload\'s offset (409 otherwise), optional Upload-Checksum "<sha1|sha256|md5> <base64>" of this body (460 when it does not match: nothing of it is kept). Answers 204 with the new Upload-Offset. One PATCH at a time per upload: a second one meanwhile is 423 (retry after it). When the connection is cut, the bytes that arrived (without a checksum) are kept: HEAD says where to resume. The last byte places the file (as asset import does) before the answer. 404/410 as HEAD; 412 when Tus-Resumable is not 1.0.0; 413 for bytes past Upload-Length; 503 with Retry-After when the file store fails (resume from the offset).',
        tags,
        security: bearerSecurity,
        params: idParams,
        response: {
          204: Type.Null({ description: 'Taken; see Upload-Offset.' }),
          409: ErrorRef,
          410: ErrorRef,
          412: ErrorRef,
          415: ErrorRef,
          423: ErrorRef,
          460: ErrorRef,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const id = (request.params as { id: string }).id;
      const body = tusBody(request);
      const offset = byteCount(request, 'Upload-Offset');
      const view = await core.assets.uploads.append(request.ctx, id, { offset, body, checksum: checksumOf(request) });
      tusHeaders(reply, view);
      return reply.status(204).send();
    },
  );

  app.delete(
    '/uploads/:id',
    {
      config: { tus: true },
      schema: {
        operationId: 'terminateUpload',
        summary: 'Abandon an upload (tus termination)',
        description:
          "Removes the upload and the bytes it received; 204. A completed upload's record goes, its file stays. 404 unknown or another team's; 412 when Tus-Resumable is not 1.0.0; 423 while a PATCH is sending to it.",
        tags,
        security: bearerSecurity,
        params: idParams,
        response: { 204: Type.Null({ description: 'Removed.' }), 412: ErrorRef, 423: ErrorRef, ...commonErrors },
      },
    },
    async (request, reply) => {
      await core.assets.uploads.terminate(request.ctx, (request.params as { id: string }).id);
      return reply.status(204).send();
    },
  );

  app.get(
    '/uploads/:id',
    {
      exposeHeadRoute: false,
      schema: {
        operationId: 'getUpload',
        summary: 'An upload and what it became',
        description:
          "The upload as JSON: length, offset, status and, once completed, `result` with the new file's file-path ID (`fileId`), stored object (`assetId`) and folders, or the pending inbound ids. 404 unknown or another team's, 410 expired.",
        tags,
        security: bearerSecurity,
        params: idParams,
        response: { 200: okSchema(Type.Ref('UploadView')), 410: ErrorRef, ...commonErrors },
      },
    },
    async (request) => ok(request.id, await core.assets.uploads.status(request.ctx, (request.params as { id: string }).id)),
  );

  const oneRequest = async (request: FastifyRequest, reply: FastifyReply, name: string | undefined) => {
    const query = request.query as Record<string, string>;
    const placement = placementOf((key) => (key === 'name' ? (name ?? query.name) : key === 'filename' ? undefined : query[key]));
    const raw = headerOf(request, 'content-length');
    if (raw === undefined || !/^\d+$/.test(raw)) throw invalid('Content-Length', 'is required: send the file with its length (curl -T does)');
    const length = Number(raw);
    const view = await core.assets.uploads.uploadWhole(request.ctx, { length, placement, body: request.uploadBody ?? emptyBody() });
    return reply.status(201).send(ok(request.id, view));
  };
  const oneRequestDescription =
    'The whole file in one request, as raw bytes of any Content-Type, with Content-Length: `curl -T photo.jpg -H "Authorization: Bearer $KEY" https://shelf.example/v1/uploads/files/`. Placed as asset import places a file (folders created as needed, type from the bytes, identical bytes stored once, MATERIAL_INBOUND_COMPLETED) before the 201, which gives the upload with its `result`. Query: folder, tags (comma-separated), description, score, link, pending, versionOf, cover. Needs the editable role. Failures: 401, 403, 413 (over the file limit or quota), 422 (placement, a body shorter than Content-Length).';

  app.put(
    '/uploads/files/:name',
    {
      bodyLimit,
      schema: {
        operationId: 'uploadFileByName',
        summary: 'Upload a file in one request (PUT)',
        description: `${oneRequestDescription} The last path segment names the file (curl -T appends it to a URL ending in /).`,
        tags,
        security: bearerSecurity,
        params: Type.Object({ name: Type.String({ description: 'The file name.' }) }),
        querystring: OneRequestQuery,
        response: { 201: okSchema(Type.Ref('UploadView')), ...commonErrors },
      },
    },
    async (request, reply) => oneRequest(request, reply, (request.params as { name: string }).name),
  );
  app.post(
    '/uploads/files',
    {
      bodyLimit,
      schema: {
        operationId: 'uploadFile',
        summary: 'Upload a file in one request (POST)',
        description: `${oneRequestDescription} The query's name names the file ("upload" without one).`,
        tags,
        security: bearerSecurity,
        querystring: OneRequestQuery,
        response: { 201: okSchema(Type.Ref('UploadView')), ...commonErrors },
      },
    },
    async (request, reply) => oneRequest(request, reply, undefined),
  );
}

function discovery(reply: FastifyReply, maxSize: number): FastifyReply {
  return reply
    .headers({
      'Tus-Version': TUS_VERSION,
      'Tus-Extension': TUS_EXTENSIONS,
      'Tus-Max-Size': String(maxSize),
      'Tus-Checksum-Algorithm': CHECKSUM_ALGORITHMS.join(','),
    })
    .status(204)
    .send();
}

function deferRefused(): never {
  throw tusRefusal('upload_header_invalid', 'Upload-Defer-Length is not supported: send Upload-Length');
}

/** A request without a body (Content-Length 0: a zero-byte file). */
function emptyBody(): Readable {
  return Readable.from([]);
}
