import { Readable } from 'node:stream';
import { GraphQLError } from 'graphql';
import type { UploadResult, UploadView } from '../../core/assets/uploads/uploads.schemas.ts';
import { builder } from '../builder.ts';

/** Uploads over HTTP from GraphQL (docs/library.md "Uploads"): one mutation for a small file, a tus upload for a large one. */

/** A file part of a GraphQL multipart request (the GraphQL multipart request spec; graphql-yoga reads it). */
export const FileRef = builder.scalarType('File', {
  description:
    'A file sent in a multipart/form-data request per the GraphQL multipart request spec (what apollo-upload-client and urql send): the operation in `operations`, the file mapped onto the variable by `map`. Input only.',
  serialize: () => {
    throw new GraphQLError('File is an input type only');
  },
  parseValue: (value) => {
    // yoga hands over its own File (a ponyfill, not necessarily this runtime's class)
    const file = value as Partial<File> | null;
    if (typeof file?.arrayBuffer !== 'function' || typeof file.size !== 'number') throw new GraphQLError('File must be a file part of a multipart request');
    return value as File;
  },
});

const UploadResultRef = builder.objectRef<UploadResult>('UploadResult').implement({
  description: 'What a completed upload became: a library file (placed as `asset import` places one), or pending inbounds when `pending` was set.',
  fields: (t) => ({
    fileId: t.exposeInt('fileId', { nullable: true, description: "The new file's file-path ID (AssetItem.id); null when held as pending inbound." }),
    assetId: t.exposeInt('assetId', { nullable: true, description: 'Its stored object id (identical bytes share one); null when pending.' }),
    folderIds: t.exposeIntList('folderIds', { description: "Folder ids from the root down to the file's folder; [] at the root or when pending." }),
    pendingIds: t.exposeIntList('pendingIds', {
      description: 'Pending inbound ids when the upload was pending (confirmPendingInbounds places them); [] otherwise.',
    }),
  }),
});

const UploadRef = builder.objectRef<UploadView & { url: string }>('Upload').implement({
  description:
    'An upload over HTTP: a tus 1.0 upload at `url` (any tus client resumes it: PATCH its bytes, HEAD for the offset) or a finished one-request upload.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The upload id (a UUID).' }),
    url: t.exposeString('url', {
      description: 'The tus upload URL (/v1/uploads/{id} under the public base URL); send its bytes there with the same Bearer key.',
    }),
    length: t.exposeFloat('length', { description: 'Upload-Length: the size of the file in bytes.' }),
    offset: t.exposeFloat('offset', { description: 'Upload-Offset: the bytes received so far; a client resumes from here.' }),
    status: t.exposeString('status', { description: '`receiving` until the last byte arrives; `completed` once the file is placed.' }),
    expiresAt: t.exposeString('expiresAt', {
      description: 'RFC 3339: when an upload still receiving expires (each chunk moves it on); expired uploads are removed.',
    }),
    result: t.field({
      type: UploadResultRef,
      nullable: true,
      description: 'What the upload became; null until completed.',
      resolve: (upload) => upload.result,
    }),
  }),
});

const placementArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  folder: t.arg.string({ description: 'Folder path like /a/b, created as needed; "/" or omitted is the library root.' }),
  tags: t.arg.stringList({ description: 'Tag names (found or created); at most 50.' }),
  description: t.arg.string({ description: 'Description, up to 1,024 characters.' }),
  score: t.arg.int({ description: 'Rating 0-5.' }),
  link: t.arg.string({ description: 'An http(s) web page URL.' }),
  pending: t.arg.boolean({ description: 'Hold the file as a pending inbound until confirmed (asset import --pending).' }),
  versionOf: t.arg.int({ description: 'A file-path ID: the upload becomes the newest version of its line (asset import --version-of).' }),
  cover: t.arg.boolean({ description: 'With versionOf: the new version becomes the cover.' }),
});

type PlacementArgs = Partial<
  Record<'folder' | 'description' | 'link' | 'name', string | null> & Record<'score' | 'versionOf', number | null> & Record<'pending' | 'cover', boolean | null>
> & { tags?: string[] | null };

/** The placement the core validates: arguments left out (or null) are not given. */
function placementOf(args: PlacementArgs): Record<string, unknown> {
  const { folder, name, tags, description, score, link, pending, versionOf, cover } = args;
  return Object.fromEntries(
    Object.entries({ folder, name, tags, description, score, link, pending, versionOf, cover }).filter(([, v]) => v !== null && v !== undefined),
  );
}

const withUrl = (publicBaseUrl: string, view: UploadView) => ({ ...view, url: `${publicBaseUrl}/v1/uploads/${view.id}` });

builder.queryFields((t) => ({
  upload: t.field({
    type: UploadRef,
    description:
      "An upload of the team and what it became (as GET /v1/uploads/{id}); needs editable or higher. Errors: not_found (unknown or another team's; `reason` upload_expired when it expired before its last byte), forbidden.",
    args: { id: t.arg.string({ required: true, description: 'The upload id.' }) },
    resolve: async (_root, args, gql) => withUrl(gql.core.config.publicBaseUrl, await gql.core.assets.uploads.status(gql.ctx, args.id)),
  }),
}));

builder.mutationFields((t) => ({
  uploadFile: t.field({
    type: UploadRef,
    description:
      'Uploads a small file in this one request (GraphQL multipart request spec: multipart/form-data with `operations`, `map` and the file part), within the 1 MiB request limit; larger files go through createUpload. Placed as `asset import --file` places a file (type from the bytes, folders created as needed, identical bytes stored once, MATERIAL_INBOUND_COMPLETED with source UPLOAD_ASSETS) before the answer. Needs editable or higher. Errors: forbidden, payload_too_large (the upload limit or the team quota), validation_failed (name, folder, tags, ...).',
    args: {
      file: t.arg({ type: FileRef, required: true, description: 'The file part.' }),
      name: t.arg.string({ description: "File name; defaults to the part's file name." }),
      ...placementArgs(t),
    },
    resolve: async (_root, args, gql) => {
      const file = args.file as File;
      const placement = placementOf({ ...args, name: args.name ?? (file.name || undefined) });
      // at most the 1 MiB request limit: read whole
      const body = Readable.from([Buffer.from(await file.arrayBuffer())]);
      const view = await gql.core.assets.uploads.uploadWhole(gql.ctx, { length: file.size, placement, body });
      return withUrl(gql.core.config.publicBaseUrl, view);
    },
  }),
  createUpload: t.field({
    type: UploadRef,
    description:
      "Starts a resumable upload of a large file: answers the tus upload `url`, to which any tus client (tus-js-client with `uploadUrl`, Uppy) sends the bytes with PATCH, resuming from HEAD's offset after an interruption. The size limit and the team quota are checked now (payload_too_large), the placement too (validation_failed). Needs editable or higher. The last byte places the file as uploadFile does.",
    args: {
      length: t.arg.float({ required: true, description: 'The size of the file in bytes (a whole number).' }),
      name: t.arg.string({ required: true, description: 'File name: 1-255 characters, no slash or control characters.' }),
      ...placementArgs(t),
    },
    resolve: async (_root, args, gql) => {
      const view = await gql.core.assets.uploads.create(gql.ctx, { length: args.length, placement: placementOf(args) });
      return withUrl(gql.core.config.publicBaseUrl, view);
    },
  }),
}));
