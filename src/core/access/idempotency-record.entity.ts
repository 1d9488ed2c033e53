import { defineEntity, p } from '@mikro-orm/core';
import { dbTimestamp, nullableTimestamp } from '../platform/timestamps.ts';
import { ApiKey } from './api-key.entity.ts';
import { Team } from './team.entity.ts';

/**
 * The remembered outcome of a create made with an Idempotency-Key (spec 4.1, 8), scoped to
 * team + API key + operation. Rows older than 24 hours no longer count and are purged by a worker.
 * Written and read by platform/idempotency.ts; declared here, with the keys its rows belong to,
 * so the platform imports no entity of a room above it.
 */
export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_records',
  uniques: [{ properties: ['team', 'apiKey', 'operation', 'idempotencyKey'] }],
  indexes: [{ properties: ['createdAt'] }],
  properties: {
    id: p.bigint().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    apiKey: () => p.manyToOne(ApiKey),
    operation: p.string().length(64),
    idempotencyKey: p.string().length(255),
    requestHash: p.string().length(64),
    /**
     * No longer read or written (every create answers 201; the adapter decides). Kept, with a
     * default, so processes of the previous release can still write and replay records while a
     * rolling deploy runs both; drop it in the release after.
     */
    responseStatus: p.integer().default(201),
    responseBody: p.json(),
    etag: p.string().length(128).nullable(),
    createdAt: dbTimestamp(),
    /**
     * Set while a slow create (withHeldIdempotency) holds the key with a committed claim and has
     * no outcome yet; past it the claim has lapsed. Null on every record with an outcome, so records
     * written by the previous release, which does not know the column, replay as before.
     */
    pendingUntil: nullableTimestamp(),
  },
});
