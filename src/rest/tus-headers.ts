import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CHECKSUM_ALGORITHMS, type ChecksumAlgorithm, type UploadView } from '../core/assets/uploads/uploads.schemas.ts';
import { DomainError } from '../core/platform/errors.ts';

/*
 * The tus 1.0 protocol's headers (docs/library.md "tus 1.0 on /v1/uploads"): read into what the
 * core's upload operations take, and written from what they answer. Parsing only: the rules are
 * the core's.
 */

export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = 'creation,creation-with-upload,termination,expiration,checksum';
export const OFFSET_OCTET_STREAM = 'application/offset+octet-stream';

/** What the upload routes allow and show to a browser on another origin (docs/library.md "Uploads"). */
export const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST, GET, HEAD, PATCH, DELETE, OPTIONS, PUT',
  'Access-Control-Allow-Headers':
    'Authorization, Content-Type, Tus-Resumable, Upload-Length, Upload-Metadata, Upload-Offset, Upload-Checksum, Upload-Defer-Length, Upload-Concat, X-Shelf-Member, X-Request-Id, X-Requested-With',
  'Access-Control-Expose-Headers':
    'Location, Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, Tus-Checksum-Algorithm, Upload-Offset, Upload-Length, Upload-Metadata, Upload-Expires, X-Request-Id, Retry-After',
  'Access-Control-Max-Age': '86400',
};

/** The statuses tus gives refusals (the core names them by `reason`); any other error is Area A's envelope. */
export const TUS_STATUS: Record<string, number> = {
  upload_offset_mismatch: 409,
  upload_locked: 423,
  upload_expired: 410,
  checksum_mismatch: 460,
  unsupported_media_type: 415,
  checksum_algorithm_unsupported: 400,
  tus_version_unsupported: 412,
  upload_header_invalid: 400,
};

export function tusRefusal(reason: string, message: string): DomainError {
  return new DomainError('validation_failed', message, undefined, { reason, subject: 'upload' });
}

export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A header holding a whole number of bytes (Upload-Length, Upload-Offset). */
export function byteCount(request: FastifyRequest, name: string): number {
  const raw = headerOf(request, name.toLowerCase());
  if (raw === undefined) throw tusRefusal('upload_header_invalid', `${name} is required`);
  if (!/^\d{1,16}$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw)))
    throw tusRefusal('upload_header_invalid', `${name} must be a whole number of bytes`);
  return Number(raw);
}

/** Upload-Checksum: `<algorithm> <base64 digest>`; an algorithm Shelf does not offer is 400. */
export function checksumOf(request: FastifyRequest): { algorithm: ChecksumAlgorithm; digest: string } | null {
  const raw = headerOf(request, 'upload-checksum');
  if (raw === undefined) return null;
  const [algorithm, digest, ...rest] = raw.trim().split(' ');
  if (!CHECKSUM_ALGORITHMS.includes(algorithm as ChecksumAlgorithm)) {
    throw tusRefusal('checksum_algorithm_unsupported', `Upload-Checksum algorithm must be one of ${CHECKSUM_ALGORITHMS.join(', ')}`);
  }
  if (!digest || rest.length > 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(digest))
    throw tusRefusal('upload_header_invalid', 'Upload-Checksum must be "<algorithm> <base64 digest>"');
  return { algorithm: algorithm as ChecksumAlgorithm, digest };
}

/**
 * Upload-Metadata (tus creation): comma-separated `key base64(value)` pairs, a key alone meaning
 * an empty value. Keys Shelf reads: filename or name, folder, tags (comma-separated), description,
 * score, link, pending, versionOf, cover; filetype/type and any other key are accepted and ignored
 * (the type is read from the bytes).
 */
export function placementOfMetadata(header: string | undefined): Record<string, unknown> {
  const values = new Map<string, string>();
  if (header !== undefined && header.trim() !== '') {
    for (const pair of header.split(',')) {
      const [key, value, ...rest] = pair.trim().split(' ');
      if (!key || rest.length > 0 || values.has(key))
        throw tusRefusal('upload_header_invalid', 'Upload-Metadata must be comma-separated "key base64value" pairs with distinct keys');
      if (value !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw tusRefusal('upload_header_invalid', `Upload-Metadata ${key} is not base64`);
      let decoded: string;
      try {
        decoded = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value ?? '', 'base64'));
      } catch {
        throw tusRefusal('upload_header_invalid', `Upload-Metadata ${key} is not UTF-8 text`);
      }
      values.set(key, decoded);
    }
  }
  return placementOf((key) => values.get(key));
}

const integerOrText = (value: string) => (/^\d{1,15}$/.test(value) ? Number(value) : value);
const flag = (value: string) => (value === '' || value === 'true' ? true : value === 'false' ? false : value);

/** The placement from named text values (Upload-Metadata, or the one-request upload's query string). */
export function placementOf(get: (key: string) => string | undefined): Record<string, unknown> {
  const placement: Record<string, unknown> = {};
  const name = get('name') ?? get('filename');
  if (name !== undefined) placement.name = name;
  for (const key of ['folder', 'description', 'link'] as const) {
    const value = get(key);
    if (value !== undefined) placement[key] = value;
  }
  const tags = get('tags');
  if (tags !== undefined) placement.tags = tags.split(',').filter((tag) => tag.trim() !== '');
  for (const key of ['score', 'versionOf'] as const) {
    const value = get(key);
    if (value !== undefined) placement[key] = integerOrText(value);
  }
  for (const key of ['pending', 'cover'] as const) {
    const value = get(key);
    if (value !== undefined) placement[key] = flag(value);
  }
  return placement;
}

export function tusHeaders(reply: FastifyReply, view: UploadView): void {
  reply.header('Upload-Offset', String(view.offset));
  if (view.status === 'receiving') reply.header('Upload-Expires', new Date(view.expiresAt).toUTCString());
}

/** The body of a request that must carry tus bytes: 415 for any other Content-Type. */
export function tusBody(request: FastifyRequest): Readable {
  const type = (headerOf(request, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== OFFSET_OCTET_STREAM) throw tusRefusal('unsupported_media_type', `Content-Type must be ${OFFSET_OCTET_STREAM}`);
  // an empty body (Content-Length 0) reaches no parser: it is an empty chunk
  return request.uploadBody ?? Readable.from([]);
}
