import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../../access/member.entity.ts';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';

/**
 * An upload over HTTP in progress (docs/library.md "Uploads"): a tus upload, a one-request upload
 * while its bytes arrive, or a GraphQL resumable upload. Every API process sees the same row, so
 * an upload started on one process is resumed on another; a PATCH holds the row's lease while its
 * bytes arrive, so two PATCHes to one upload never interleave. Each PATCH's bytes are appended to
 * one object in storage (`uploads/<id>/data`); the last byte places the file as `asset import` does,
 * and the row stays (status `completed`, with the file) until it expires.
 */
export const LibraryUpload = defineEntity({
  name: 'LibraryUpload',
  tableName: 'library_uploads',
  // the maintenance job looks for expired rows; quotas sum a team's open uploads
  indexes: [{ properties: ['expiresAt'] }, { properties: ['team', 'status'] }],
  properties: {
    /** A random UUID: the upload's URL names it, so it is not guessable. */
    id: p.uuid().primary(),
    team: () => p.manyToOne(Team),
    /** The member who uploads (X-Shelf-Member), the file's owner; null for a key alone. */
    user: () => p.manyToOne(Member).nullable(),
    /** Upload-Length: the file's size in bytes. */
    byteLength: p.bigint(),
    /** Upload-Offset: the bytes received so far. */
    byteOffset: p.bigint().defaultRaw('0'),
    /** Sizes of the pieces received (one per PATCH), in order. */
    parts: p.json().columnType('jsonb').defaultRaw("'[]'"),
    /** What the file store needs to append the next piece (an S3 multipart upload's id and parts); null before the first. */
    storeState: p.json().columnType('jsonb').nullable(),
    /** The placement (folder, name, tags, ...), validated at creation. */
    placement: p.json().columnType('jsonb'),
    /** Upload-Metadata as the client sent it, returned on HEAD (tus 1.0 creation). */
    metadataHeader: p.text().nullable(),
    /** receiving | completed */
    status: p.string().length(16).default('receiving'),
    /** The result once completed: `{ id, assetId, folderIds }`, or `{ pendingIds }`. */
    result: p.json().columnType('jsonb').nullable(),
    expiresAt: p.datetime().columnType('timestamptz'),
    /** The PATCH holding the upload while its bytes arrive (a random token), and until when; null when none. */
    leaseToken: p.uuid().nullable(),
    leaseUntil: p.datetime().columnType('timestamptz').nullable(),
    createdAt: dbTimestamp(),
  },
});
