import type { PendingInboundView } from '../../core/assets/pending-inbound/pending-inbound.schemas.ts';
import type { ConfirmedInbound } from '../../core/assets/pending-inbound/pending-inbound.service.ts';
import { builder } from '../builder.ts';
import { countedAs, LIST_BOUNDS, listCost, pageCost } from '../costs.ts';
import { ORDINARY_PAGING_EXPLAINED, pageArgs, pageType } from '../shapes.ts';

/** Pending inbound (docs/library.md "Pending inbound"). */

const PendingInboundRef = builder.objectRef<PendingInboundView>('PendingInbound').implement({
  description:
    'An import held until it is confirmed or discarded (`asset import --pending`). Its bytes are stored, but it is no library file yet: search, shares and products do not see it.',
  fields: (t) => ({
    id: t.exposeInt('id', {
      description:
        'Pending inbound id: the key of confirmPendingInbounds and discardPendingInbounds, and of `pendingInboundIdToMaterialId` in the MATERIAL_INBOUND_COMPLETED event.',
    }),
    folderPath: t.exposeString('folderPath', {
      description: 'Where the file goes on confirm: a folder path like /a/b (created as needed then), or / for the library root.',
    }),
    name: t.exposeString('name', { description: 'The file name it will have: 1-255 characters, no slash.' }),
    extension: t.exposeString('extension', {
      nullable: true,
      description: 'Lower-case, without the dot: from the name, else from the detected type; null when neither gives one.',
    }),
    mimeType: t.exposeString('mimeType', { description: 'The MIME type read from the bytes (not the name).' }),
    byteSize: t.exposeFloat('byteSize', { description: 'Size in bytes.' }),
    width: t.exposeInt('width', { nullable: true, description: 'Image width in pixels (EXIF orientation applied); null when not an image sharp can read.' }),
    height: t.exposeInt('height', { nullable: true, description: 'Image height in pixels (EXIF orientation applied); null when not an image sharp can read.' }),
    durationMs: t.exposeFloat('durationMs', { nullable: true, description: 'Audio or video duration in milliseconds; null otherwise or when unknown.' }),
    tags: t.exposeStringList('tags', { description: "Tag names the file gets on confirm (the team's tags are found or created then)." }),
    description: t.exposeString('description', { nullable: true, description: 'Description the file gets; null when none was given.' }),
    score: t.exposeInt('score', { nullable: true, description: 'Rating 0-5 the file gets; null when none was given.' }),
    link: t.exposeString('link', { nullable: true, description: 'An http(s) URL the file gets; null when none was given.' }),
    userId: t.exposeInt('userId', {
      nullable: true,
      description: "Member id the import named (`--user`): the file's owner and creator on confirm; null when none.",
    }),
    createdAt: t.exposeString('createdAt', { description: 'When it was imported as pending: RFC 3339, UTC, microseconds.' }),
  }),
});

const PendingInboundPageRef = pageType('PendingInboundPage', PendingInboundRef, {
  description: "A page of the team's pending inbounds, newest first.",
  items: 'pending inbounds',
  pagination: ORDINARY_PAGING_EXPLAINED,
});

const ConfirmedInboundRef = builder.objectRef<ConfirmedInbound>('ConfirmedPendingInbound').implement({
  description: 'One confirmed pending inbound and the library file it became.',
  fields: (t) => ({
    pendingInboundId: t.exposeInt('pendingInboundId', { description: 'The pending inbound id (now gone).' }),
    materialId: t.exposeInt('materialId', { description: "The new file's file-path ID (AssetItem.id, libraryFile(id))." }),
    folderIds: t.exposeIntList('folderIds', { description: "Folder ids from the root down to the file's folder; [] at the library root." }),
  }),
});

const ConfirmResultRef = builder.objectRef<{ confirmed: ConfirmedInbound[] }>('ConfirmPendingInboundsResult').implement({
  description: 'What confirmPendingInbounds answers.',
  fields: (t) => ({
    confirmed: t.field({
      type: [ConfirmedInboundRef],
      description: `One item per confirmed id, by ascending pending inbound id. ${countedAs(LIST_BOUNDS.idsPerCall, 'a call confirms at most 100')}`,
      complexity: listCost(LIST_BOUNDS.idsPerCall),
      resolve: (r) => r.confirmed,
    }),
  }),
});

const DiscardResultRef = builder.objectRef<{ discarded: number[] }>('DiscardPendingInboundsResult').implement({
  description: 'What discardPendingInbounds answers.',
  fields: (t) => ({ discarded: t.exposeIntList('discarded', { description: 'The discarded pending inbound ids, ascending.' }) }),
});

const IDS_DESCRIPTION =
  "Pending inbound ids of the team, 1-100 (a repeated id counts once). Any id that is unknown, another team's, or already confirmed or discarded: not_found naming it, and nothing changes.";

builder.queryFields((t) => ({
  pendingInbounds: t.field({
    type: PendingInboundPageRef,
    description:
      "The team's pending inbounds, newest first; needs editable or higher (as confirming does). Errors: forbidden, validation_failed (page, pageSize).",
    args: pageArgs(t, 'Page number from 1 (default 1).'),
    complexity: pageCost,
    resolve: (_root, args, gql) => gql.core.assets.pendingInbound.list(gql.ctx, { page: args.page, pageSize: args.pageSize }),
  }),
}));

builder.mutationFields((t) => ({
  confirmPendingInbounds: t.field({
    type: ConfirmResultRef,
    description:
      'Places pending inbounds in the library in one transaction (folders created as needed) and removes them; needs editable or higher. Writes one MATERIAL_INBOUND_COMPLETED (source PENDING_INBOUND_CONFIRM, pendingInboundIdToMaterialId, materialIds), MATERIAL_ADDED_TO_FOLDER per folder and folder ADD. Errors: not_found, forbidden, validation_failed (ids).',
    args: { ids: t.arg.intList({ required: true, description: IDS_DESCRIPTION }) },
    resolve: (_root, args, gql) => gql.core.assets.pendingInbound.confirm(gql.ctx, { ids: args.ids }),
  }),
  discardPendingInbounds: t.field({
    type: DiscardResultRef,
    description:
      'Removes pending inbounds without placing them; needs editable or higher; writes no event. Errors: not_found, forbidden, validation_failed (ids).',
    args: { ids: t.arg.intList({ required: true, description: IDS_DESCRIPTION }) },
    resolve: (_root, args, gql) => gql.core.assets.pendingInbound.discard(gql.ctx, { ids: args.ids }),
  }),
}));
