import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROLES, type Role } from '../../../src/core/access/roles.ts';
import type { TestEnv } from '../env.ts';
import { given } from '../given.ts';
import { fieldIds, givenProducts } from '../given-products.ts';
import { givenTemplates, textField } from '../given-templates.ts';
import { writeImage } from '../media-files.ts';

/**
 * The real ids a fuzz run aims at: a team with a key of every role and everything its operations
 * name (brands, categories, templates, products, library files and folders, a library share, a
 * product share, subscriptions, an approval template and task). Destructive operations aim at the
 * `spare*` ids, so the main ones live through the whole run.
 */
export interface FuzzWorld {
  teamId: number;
  keys: Record<Role, string>;
  /** A manage key of another team. */
  stranger: string;
  /** A key of the team that has been revoked. */
  revoked: string;
  members: number[];
  brandIds: number[];
  spareBrandIds: number[];
  categoryIds: number[];
  spareCategoryIds: number[];
  templateIds: string[];
  spareTemplateIds: string[];
  /** A date field of the first template, for impossible dates in product values. */
  dateField: { templateId: string; fieldId: string };
  /** Drafts. */
  productIds: number[];
  publishedIds: number[];
  spareProductIds: number[];
  imageIds: number[];
  fileIds: number[];
  folderIds: number[];
  folderPaths: string[];
  tagIds: number[];
  linkToken: string;
  productShares: Array<{ productId: number; shareId: number }>;
  approvalTemplateIds: string[];
  taskIds: string[];
  /** The loopback peer: approval assets at `${peerUrl}/bytes/...`, callbacks anywhere else. */
  peerUrl: string;
  /** A template of 14 textarea fields (65,535 characters each at most): products at the body limit. */
  longTexts: { templateId: string; fieldIds: string[] };
}

/** What the seeding needs of an environment; the support builders read only these two. */
export type SeedEnv = Pick<TestEnv, 'core' | 'orm'>;

/** Seeds the world through the core, as the other test worlds do; `inputs` is a directory for imported files. */
export async function seedFuzzWorld(seedEnv: SeedEnv, inputs: string, peerUrl: string): Promise<FuzzWorld> {
  const env = seedEnv as TestEnv;
  const core = env.core;
  const op = core.operatorCtx();
  const g = given(env);
  const gp = givenProducts(env, inputs);
  const gt = givenTemplates(env);

  const team = await g.team('Fuzz');
  await core.access.enableSubscriptions(op, { teamId: team.teamId });
  const keys = {} as Record<Role, string>;
  const made = {} as Record<Role, Awaited<ReturnType<typeof g.key>>>;
  for (const role of ROLES) {
    made[role] = await g.key(team, role);
    keys[role] = made[role].key;
  }
  const manage = made.manage;
  const ctx = await g.ctx(manage);
  const other = await g.team('Fuzz other');
  const stranger = (await g.key(other, 'manage')).key;
  const revokedKey = await g.key(team, 'editable');
  await core.access.revokeKey(op, { keyId: revokedKey.keyId });
  const members = [(await g.member(team, 'ann')).userId, (await g.member(team, 'bob')).userId];

  const brandIds = [(await g.brand(manage, { name: 'Fuzz brand' })).id];
  const spareBrandIds = [(await g.brand(manage, { name: 'Spare 1' })).id, (await g.brand(manage, { name: 'Spare 2' })).id];
  const root = await g.category(manage, { brandId: brandIds[0]!, name: 'Root' });
  const child = await g.category(manage, { brandId: brandIds[0]!, name: 'Child', parentId: root.id });
  const spareCategoryIds = [
    (await g.category(manage, { brandId: brandIds[0]!, name: 'Spare A' })).id,
    (await g.category(manage, { brandId: brandIds[0]!, name: 'Spare B' })).id,
  ];

  const template = await gt.template(manage, {
    groups: [
      {
        name: 'Basics',
        fields: [
          textField('colour'),
          textField('material', { type: 'textarea' }),
          textField('launch', { type: 'date' }),
          textField('season', { type: 'dateRange' }),
        ],
      },
    ],
  });
  const spareTemplate = await gt.template(manage);
  const longTexts = await gt.template(manage, {
    groups: [{ name: 'Texts', fields: Array.from({ length: 14 }, (_, i) => textField(`text${i}`, { type: 'textarea' })) }],
  });

  const folderPaths = ['/fuzz', '/fuzz/inner'];
  const redPath = join(inputs, 'fuzz-red.png');
  await writeImage(redPath, { width: 40, height: 30, colour: '#ff0000', format: 'png' });
  const image = await g.libraryFile(team, { file: redPath, folder: folderPaths[0], tags: ['fuzz', 'red'], description: 'A fuzz image', score: 3 });
  const imageIds = [image.id, await gp.image(team, 'second.png')];
  const innerPath = join(inputs, 'inner-notes.txt');
  await writeFile(innerPath, 'inner notes\n');
  const fileIds = [await gp.textFile(team, 'notes.txt'), (await g.libraryFile(team, { file: innerPath, folder: folderPaths[1] })).id];
  const folders = await env.orm.em.fork().execute<{ id: number }[]>('select id from library_folders where team_id = ? order by id', [team.teamId]);
  const tags = await env.orm.em.fork().execute<{ id: number }[]>('select id from library_tags where team_id = ? order by id', [team.teamId]);

  const base = { brandId: brandIds[0], categoryId: child.id, templateId: template.id };
  const productIds = [(await gp.product(manage, { ...base, name: 'Draft one', imageAssetIds: [imageIds[0]] })).id];
  const publishedIds = [(await gp.published(manage, { ...base, imageAssetIds: imageIds, relatedAssetIds: [fileIds[0]] })).id];
  const spareProductIds = [(await gp.published(manage, { imageAssetIds: [imageIds[1]] })).id, (await gp.product(manage, { name: 'Spare draft' })).id];

  const { linkToken } = await core.assets.shares.create(op, { team: team.teamId, folder: folderPaths[0] });
  const share = await core.catalogue.productShares.create(ctx, publishedIds[0]!, {});
  const spareShare = await core.catalogue.productShares.create(ctx, spareProductIds[0]!, {});
  await core.events.subscriptions.changeFolderSubscription(ctx, { folderIds: [folders[0]!.id], callbackUrl: `${peerUrl}/folders` });
  await core.events.subscriptions.changeApprovalSubscription(ctx, { operation: 'ADD', callbackUrl: `${peerUrl}/approvals` });

  const scope = { em: env.orm.em.fork(), teamId: team.teamId };
  const approvalTemplate = await core.approvals.templates.create(scope, {
    name: 'Fuzz review',
    workflow: { nodes: [{ name: 'Look', signMode: 'or', approvers: members }] },
  });
  const task = await core.approvals.tasks.create(ctx, {
    templateId: approvalTemplate.id,
    createdBy: String(members[0]),
    assets: [{ name: 'a.png', url: `${peerUrl}/bytes/seed` }],
  });

  return {
    teamId: team.teamId,
    keys,
    stranger,
    revoked: revokedKey.key,
    members,
    brandIds,
    spareBrandIds,
    categoryIds: [root.id, child.id],
    spareCategoryIds,
    templateIds: [template.id],
    spareTemplateIds: [spareTemplate.id],
    dateField: { templateId: template.id, fieldId: fieldIds(template).launch! },
    productIds,
    publishedIds,
    spareProductIds,
    imageIds,
    fileIds,
    folderIds: folders.map((f) => f.id),
    folderPaths,
    tagIds: tags.map((t) => t.id),
    linkToken,
    productShares: [
      { productId: publishedIds[0]!, shareId: share.body.id },
      { productId: spareProductIds[0]!, shareId: spareShare.body.id },
    ],
    approvalTemplateIds: [approvalTemplate.id],
    longTexts: {
      templateId: longTexts.id,
      fieldIds: Array.from({ length: 14 }, (_, i) => fieldIds(longTexts)[`text${i}`]!),
    },
    taskIds: [task.body.taskId],
    peerUrl,
  };
}
