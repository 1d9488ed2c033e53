import { FOLDER_EVENT_TYPE } from '../../outbox/event-types.ts';
import { anySubscription, subscribedFolderIds } from '../../outbox/listeners.queries.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { type ActingScope, memberIdOf } from '../../platform/ctx.ts';
import { type FileFacts, fileFacts, filesFacts } from './files.queries.ts';

/** Spec 6.1 MaterialCallbackDTO: duration in seconds and size in KB as its table says; no download link (it would expire before retries end). */
function materialCallbackDto(scope: ActingScope, file: FileFacts): Record<string, unknown> {
  const userId = memberIdOf(scope.actor);
  return {
    id: file.id,
    parentIds: file.parentIds,
    userId: userId === null ? null : String(userId),
    name: file.name,
    downloadUrl: null,
    source: file.source,
    link: file.link,
    extension: file.extension,
    duration: file.durationMs === null ? null : Math.round(file.durationMs / 1000),
    size: file.sizeKb,
    width: file.width,
    height: file.height,
    description: file.description,
    score: file.score,
    createUser: file.createUserId === null ? null : String(file.createUserId),
  };
}

/** 6.1 on DELETE: only the identifying fields. */
function identifyingDto(file: FileFacts): Record<string, unknown> {
  return { id: file.id, parentIds: file.parentIds, name: file.name };
}

/** A rough kind of material from its MIME type, for the MATERIAL_DELETED snapshot's `materialType`. */
function materialType(mimeType: string): string {
  const top = mimeType.split('/')[0];
  if (top === 'image' || top === 'video' || top === 'audio') return top.toUpperCase();
  if (mimeType === 'application/pdf' || top === 'text' || mimeType.includes('document') || mimeType.includes('sheet') || mimeType.includes('presentation'))
    return 'DOCUMENT';
  return 'OTHER';
}

/** 6.1: one FOLDER_CONTENT_UPDATE per subscribed folder among `folderIds` (a subscription covers its subtree). */
async function folderUpdates(
  scope: ActingScope,
  folderIds: readonly number[],
  type: 'ADD' | 'UPDATE' | 'DELETE',
  assets: Record<string, unknown>[],
): Promise<void> {
  if (folderIds.length === 0) return;
  for (const folderId of await subscribedFolderIds(scope, folderIds)) await folderEvent(scope, folderId, type, assets);
}

/** 6.1 for a batch: each subscribed folder on any file's path gets one update with the files under it. */
async function folderUpdatesFor(
  scope: ActingScope,
  files: readonly FileFacts[],
  type: 'ADD' | 'DELETE',
  dto: (file: FileFacts) => Record<string, unknown>,
): Promise<void> {
  const onPaths = [...new Set(files.flatMap((file) => file.parentIds))];
  if (onPaths.length === 0) return;
  for (const folderId of await subscribedFolderIds(scope, onPaths)) {
    await folderEvent(scope, folderId, type, files.filter((file) => file.parentIds.includes(folderId)).map(dto));
  }
}

/** One FOLDER_CONTENT_UPDATE for a subscribed folder, ordered with the folder's other updates. */
function folderEvent(scope: ActingScope, folderId: number, type: 'ADD' | 'UPDATE' | 'DELETE', assets: Record<string, unknown>[]): Promise<string | null> {
  return recordEvent(scope, {
    eventType: FOLDER_EVENT_TYPE,
    audience: { kind: 'folder', folderId },
    orderingKey: `folder:${folderId}`,
    fields: { folderId, type, assets, orgId: scope.teamId },
  });
}

/** The file changed in place: folder UPDATE, with the file as it is now, for each subscribed folder on its path. */
function fileUpdatedInFolders(scope: ActingScope, after: FileFacts): Promise<void> {
  return folderUpdates(scope, after.parentIds, 'UPDATE', [materialCallbackDto(scope, after)]);
}

/**
 * A 6.2 event: to the outbox for webhook subscribers, and to the live log for GraphQL subscribers
 * of the team or of a folder on `folderIds` (the affected files' paths), whether or not anyone
 * subscribes now (a subscriber may resume from a position taken before).
 */
function material(
  scope: ActingScope,
  eventType: string,
  fileId: number,
  payload: Record<string, unknown>,
  folderIds: readonly number[],
): Promise<string | null> {
  return recordEvent(scope, {
    eventType,
    audience: { kind: 'material' },
    orderingKey: `material:${fileId}`,
    fields: { payload },
    live: { stream: 'library', subjectId: String(fileId), folderIds },
  });
}

/** 6.2 MATERIAL_METADATA_UPDATED of one file: what changed, as `materials` items of its changeType. */
function metadataUpdated(
  scope: ActingScope,
  fileId: number,
  changeType: 'BASIC' | 'TAGS' | 'VALIDITY' | 'OWNER' | 'METADATA' | 'CUSTOM_FIELD',
  materials: object[],
  folderIds: readonly number[],
): Promise<string | null> {
  return material(scope, 'MATERIAL_METADATA_UPDATED', fileId, { changeType, materialIds: [fileId], materials }, folderIds);
}

/** A change whose 6.2 `materials` item its caller built: MATERIAL_METADATA_UPDATED with that item, then folder UPDATE with the file as it is now. */
async function materialsItemChanged(scope: ActingScope, changeType: 'VALIDITY' | 'METADATA' | 'CUSTOM_FIELD', item: { materialId: number }): Promise<void> {
  const after = (await fileFacts(scope, item.materialId))!;
  await metadataUpdated(scope, item.materialId, changeType, [item], after.parentIds);
  if (await anySubscription(scope)) await fileUpdatedInFolders(scope, after);
}

/** 6.2 VALIDITY materials item (file-validity.service.ts builds it). */
export interface ValidityFacts {
  materialId: number;
  validityStatus: number;
  validityStatusName: string;
  daysToExpire: number | null;
  startTime: string | null;
  endTime: string | null;
  isPermanent: boolean;
}

/** 6.2 METADATA materials item (file-metadata.service.ts builds it): `metadata` maps field names to values, only those created or updated now (null: cleared). */
export interface MetadataFacts {
  materialId: number;
  recordId: number;
  metadata: Record<string, string | number | null>;
}

/** 6.2 CUSTOM_FIELD materials item (file-custom-field.service.ts builds it): one object keyed by the template id, mapping custom field ids to values set or cleared (null) now. */
export interface CustomFieldFacts {
  materialId: number;
  customFields: Array<Record<string, Record<string, string | number | null>>>;
}

/** 6.2 MATERIAL_VERSION_CHANGED payload (version-line.service.ts says what each field is per action). */
export interface VersionChange {
  coverMaterialId: number;
  newMaterialId: number;
  action: 'ADD' | 'SET_COVER' | 'REPLACE_COVER_ON_UPLOAD' | 'REMOVE';
  version: number;
  removeType?: 'ADD' | 'DELETE';
  versionGroupDissolved?: boolean;
}

/**
 * The events of library writes (docs/events.md has the table). Each is called by
 * the one operation that makes the change, inside its transaction, after the change.
 */
export const libraryEvents = {
  /** An import stored a file: MATERIAL_INBOUND_COMPLETED, MATERIAL_ADDED_TO_FOLDER when it went into a folder, folder ADD on its path. */
  async imported(scope: ActingScope, fileId: number): Promise<void> {
    const file = (await fileFacts(scope, fileId))!;
    const initiator = memberIdOf(scope.actor);
    await material(
      scope,
      'MATERIAL_INBOUND_COMPLETED',
      file.id,
      {
        source: 'UPLOAD_ASSETS',
        initiatorUserId: initiator === null ? null : String(initiator),
        uploadResults: [
          { id: file.id, name: file.name, extension: file.extension, size: file.sizeKb, width: file.width, height: file.height, uploadStatus: 'SUCCESS' },
        ],
        materialIds: [file.id],
      },
      file.parentIds,
    );
    if (file.folderId !== null)
      await material(scope, 'MATERIAL_ADDED_TO_FOLDER', file.id, { materialIds: [file.id], folderIds: [file.folderId] }, file.parentIds);
    if (await anySubscription(scope)) await folderUpdates(scope, file.parentIds, 'ADD', [materialCallbackDto(scope, file)]);
  },

  /**
   * Pending inbound confirmed: one MATERIAL_INBOUND_COMPLETED for the batch (source PENDING_INBOUND_CONFIRM,
   * `pendingInboundIdToMaterialId`, `materialIds`), one MATERIAL_ADDED_TO_FOLDER per folder that received files, and one folder ADD
   * per subscribed folder on their paths with the files under it. Ordering keys: the first file of the batch or of the folder.
   */
  async pendingConfirmed(scope: ActingScope, confirmed: ReadonlyArray<{ pendingInboundId: number; fileId: number }>): Promise<void> {
    if (confirmed.length === 0) return;
    const files = await filesFacts(
      scope,
      confirmed.map((c) => c.fileId),
    );
    const initiator = memberIdOf(scope.actor);
    const materialIds = confirmed.map((c) => c.fileId);
    await material(
      scope,
      'MATERIAL_INBOUND_COMPLETED',
      materialIds[0]!,
      {
        source: 'PENDING_INBOUND_CONFIRM',
        initiatorUserId: initiator === null ? null : String(initiator),
        pendingInboundIdToMaterialId: Object.fromEntries(confirmed.map((c) => [String(c.pendingInboundId), c.fileId])),
        materialIds,
      },
      files.flatMap((file) => file.parentIds),
    );
    const byFolder = new Map<number, FileFacts[]>();
    for (const file of files) if (file.folderId !== null) byFolder.set(file.folderId, [...(byFolder.get(file.folderId) ?? []), file]);
    for (const [folderId, inFolder] of byFolder) {
      const ids = inFolder.map((file) => file.id);
      await material(scope, 'MATERIAL_ADDED_TO_FOLDER', ids[0]!, { materialIds: ids, folderIds: [folderId] }, inFolder[0]!.parentIds);
    }
    if (await anySubscription(scope)) await folderUpdatesFor(scope, files, 'ADD', (file) => materialCallbackDto(scope, file));
  },

  /** An edit changed BASIC fields and/or tags: MATERIAL_METADATA_UPDATED per changeType with only what changed, and folder UPDATE. */
  async edited(scope: ActingScope, before: FileFacts, fileId: number): Promise<void> {
    const after = (await fileFacts(scope, fileId))!;
    const basic: Record<string, unknown> = {};
    for (const field of ['name', 'description', 'score', 'link'] as const) {
      if (before[field] !== after[field]) basic[field] = after[field];
    }
    const tagsChanged = before.tagIds.join(',') !== after.tagIds.join(',');
    if (Object.keys(basic).length > 0) {
      await metadataUpdated(scope, fileId, 'BASIC', [{ materialId: fileId, ...basic }], after.parentIds);
    }
    if (tagsChanged) {
      await metadataUpdated(scope, fileId, 'TAGS', [{ materialId: fileId, tagIds: after.tagIds, tagNames: after.tagNames }], after.parentIds);
    }
    if ((Object.keys(basic).length > 0 || tagsChanged) && (await anySubscription(scope))) await fileUpdatedInFolders(scope, after);
  },

  /**
   * A move: MATERIAL_ADDED_TO_FOLDER for the new relation; subscribed folders only on the old path
   * get DELETE, only on the new path ADD, and on both (a common ancestor) UPDATE.
   */
  async moved(scope: ActingScope, before: FileFacts, fileId: number): Promise<void> {
    const after = (await fileFacts(scope, fileId))!;
    if (before.folderId === after.folderId) return;
    // the live log tells both paths: a folder the file left sees it go
    if (after.folderId !== null)
      await material(scope, 'MATERIAL_ADDED_TO_FOLDER', fileId, { materialIds: [fileId], folderIds: [after.folderId] }, [
        ...before.parentIds,
        ...after.parentIds,
      ]);
    if (!(await anySubscription(scope))) return;
    const oldPath = new Set(before.parentIds);
    const newPath = new Set(after.parentIds);
    await folderUpdates(
      scope,
      before.parentIds.filter((id) => !newPath.has(id)),
      'DELETE',
      [identifyingDto(before)],
    );
    await folderUpdates(
      scope,
      after.parentIds.filter((id) => !oldPath.has(id)),
      'ADD',
      [materialCallbackDto(scope, after)],
    );
    await folderUpdates(
      scope,
      after.parentIds.filter((id) => oldPath.has(id)),
      'UPDATE',
      [materialCallbackDto(scope, after)],
    );
  },

  /** A validity period set, or a status reached by the daily check: changeType VALIDITY (6.2 table), and folder UPDATE. */
  validityChanged(scope: ActingScope, validity: ValidityFacts): Promise<void> {
    return materialsItemChanged(scope, 'VALIDITY', validity);
  },

  /** An ownership transfer: changeType OWNER with the (unchanged) file-path ID and the new owner, and folder UPDATE. */
  async ownerChanged(scope: ActingScope, fileId: number): Promise<void> {
    const after = (await fileFacts(scope, fileId))!;
    await metadataUpdated(
      scope,
      fileId,
      'OWNER',
      [{ materialId: fileId, ownerUserId: after.ownerId === null ? null : String(after.ownerId) }],
      after.parentIds,
    );
    if (await anySubscription(scope)) await fileUpdatedInFolders(scope, after);
  },

  /** A file's metadata values set or cleared: changeType METADATA with the record and only the fields created or updated now, and folder UPDATE. */
  metadataChanged(scope: ActingScope, facts: MetadataFacts): Promise<void> {
    return materialsItemChanged(scope, 'METADATA', facts);
  },

  /** A file's custom field values of a template set or cleared: changeType CUSTOM_FIELD keyed by template id, and folder UPDATE. */
  customFieldsChanged(scope: ActingScope, facts: CustomFieldFacts): Promise<void> {
    return materialsItemChanged(scope, 'CUSTOM_FIELD', facts);
  },

  /**
   * Files went to the recycle bin (RECYCLE) or left it for good (PERMANENT): one MATERIAL_DELETED
   * per file, keyed by the file so it stays in order with the file's other events, each with the
   * snapshot before deletion and, for a folder deletion, the top-level `folderIds` of the folders
   * deleted in the same batch. RECYCLE also tells each subscribed folder on the files' paths, once,
   * with the identifying fields of the files that left it (6.1 DELETE); PERMANENT does not, as the
   * files had already left their folders.
   */
  async deleted(
    scope: ActingScope,
    befores: readonly FileFacts[],
    deleteAction: 'RECYCLE' | 'PERMANENT',
    folderIds: readonly number[] = [],
    /** The files folders showed (a version line's hidden versions are in no folder listing). */
    shownInFolders: readonly FileFacts[] = befores,
  ): Promise<void> {
    if (befores.length === 0) return;
    for (const before of befores) {
      await material(
        scope,
        'MATERIAL_DELETED',
        before.id,
        {
          materialIds: [before.id],
          deleteAction,
          ...(folderIds.length > 0 ? { folderIds } : {}),
          materials: [
            {
              materialId: before.id,
              name: before.name,
              materialType: materialType(before.mimeType),
              extension: before.extension,
              tagIds: before.tagIds,
              tagNames: before.tagNames,
              folderIds: before.parentIds,
              ownerUserId: before.ownerId === null ? null : String(before.ownerId),
              createUserId: before.createUserId === null ? null : String(before.createUserId),
            },
          ],
        },
        before.parentIds,
      );
    }
    if (deleteAction === 'RECYCLE' && (await anySubscription(scope))) await folderUpdatesFor(scope, shownInFolders, 'DELETE', identifyingDto);
  },

  /**
   * A version line changed (6.2 MATERIAL_VERSION_CHANGED, keyed by `coverMaterialId`). Folders see
   * what they show change: a file hidden as a version leaves its folders (DELETE), a file that
   * became visible (a new cover, a version removed as a file of its own) joins them (ADD).
   */
  async versionChanged(scope: ActingScope, change: VersionChange, shownBefore: readonly FileFacts[], shownAfterIds: readonly number[]): Promise<void> {
    const shownAfter = await filesFacts(scope, shownAfterIds);
    const paths = [...shownBefore, ...shownAfter].flatMap((file) => file.parentIds);
    await material(scope, 'MATERIAL_VERSION_CHANGED', change.coverMaterialId, { ...change }, paths);
    if (!(await anySubscription(scope))) return;
    const before = new Set(shownBefore.map((file) => file.id));
    const after = new Set(shownAfterIds);
    await folderUpdatesFor(
      scope,
      shownBefore.filter((file) => !after.has(file.id)),
      'DELETE',
      identifyingDto,
    );
    await folderUpdatesFor(
      scope,
      shownAfter.filter((file) => !before.has(file.id)),
      'ADD',
      (file) => materialCallbackDto(scope, file),
    );
  },

  /**
   * Files came back from the recycle bin: MATERIAL_ADDED_TO_FOLDER for each file that is back in a
   * folder (a file restored to the root joins no folder), and folder ADD on their paths.
   */
  async restored(scope: ActingScope, fileIds: readonly number[]): Promise<void> {
    if (fileIds.length === 0) return;
    const files = await filesFacts(scope, fileIds);
    for (const file of files) {
      if (file.folderId !== null)
        await material(scope, 'MATERIAL_ADDED_TO_FOLDER', file.id, { materialIds: [file.id], folderIds: [file.folderId] }, file.parentIds);
    }
    if (!(await anySubscription(scope))) return;
    await folderUpdatesFor(scope, files, 'ADD', (file) => materialCallbackDto(scope, file));
  },
};
