import type { TeamScope } from '../platform/ctx.ts';
import { int } from '../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../platform/sql.ts';

/*
 * Who listens, as a publisher asks before building an event (event_subscriptions): reads of the
 * subscriptions subscriptions.queries.ts writes, kept with the outbox so that publishers in every
 * room import the outbox only. Every statement names the team.
 */

/** Whether anyone in the team subscribes to anything: when nobody does, library writes skip event work entirely. */
export async function anySubscription(scope: TeamScope): Promise<boolean> {
  return (await queryOne(scope, 'select 1 from event_subscriptions where team_id = ? limit 1', [scope.teamId])) !== null;
}

/** The folders among `folderIds` that have folder subscriptions, in id order. */
export async function subscribedFolderIds(scope: TeamScope, folderIds: readonly number[]): Promise<number[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select distinct folder_id from event_subscriptions where team_id = ? and kind = 'folder' and folder_id = any(?::int[]) order by folder_id`,
    [scope.teamId, intArray(folderIds)],
  );
  return rows.map((row) => int(row.folder_id, 'folder_id'));
}
