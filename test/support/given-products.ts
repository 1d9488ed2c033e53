import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProductRecord } from '../../src/core/catalogue/products/product-projection.ts';
import type { TemplateView } from '../../src/core/catalogue/templates/template.schemas.ts';
import type { TestEnv } from './env.ts';
import { type GivenKey, type GivenTeam, given } from './given.ts';
import { writeImage } from './media-files.ts';

let counter = 0;

const options = (...values: string[]) =>
  values.map((value, i) => ({ value, label: value.toUpperCase(), sortOrder: i, ...(value.startsWith('old') ? { archived: true } : {}) }));

/** One custom field of every type (spec 2.4), keyed by field key; values starting with "old" are archived options. */
export const ALL_TYPES_FIELDS = [
  { key: 'tText', name: 'Text', type: 'text', required: true },
  { key: 'tTextarea', name: 'Textarea', type: 'textarea' },
  { key: 'tEmail', name: 'Email', type: 'email' },
  { key: 'tPhone', name: 'Phone', type: 'phone' },
  { key: 'tUrl', name: 'Url', type: 'url' },
  { key: 'tColor', name: 'Color', type: 'color' },
  { key: 'tDate', name: 'Date', type: 'date' },
  { key: 'tRange', name: 'Range', type: 'dateRange' },
  { key: 'tNumber', name: 'Number', type: 'number', config: { unit: 'kg' } },
  { key: 'tPrice', name: 'Price', type: 'currency', config: { code: 'EUR', symbol: '€', decimals: 2 } },
  { key: 'tHtml', name: 'Html', type: 'richtext', config: { mode: 'html' } },
  { key: 'tDelta', name: 'Delta', type: 'richtext', config: { mode: 'delta' } },
  { key: 'tSelect', name: 'Select', type: 'select', config: { options: options('s', 'm', 'old') } },
  { key: 'tRadio', name: 'Radio', type: 'radio', config: { options: options('a', 'b', 'oldr') } },
  { key: 'tCheck', name: 'Check', type: 'checkbox', config: { options: options('x', 'y', 'oldc') } },
  { key: 'tImage', name: 'Image', type: 'image', config: { maxCount: 2, maxSizeMB: 1, accept: ['image/png'] } },
  { key: 'tFile', name: 'File', type: 'file', config: { maxCount: 3, accept: ['.txt'] } },
  { key: 'tTiny', name: 'Tiny', type: 'file', config: { maxSizeMB: 0.00001 } },
] as const;

export type FieldKey = (typeof ALL_TYPES_FIELDS)[number]['key'];

/** Field id by key, and the system field ids (name, sku, mainImage), of a template. */
export function fieldIds(template: TemplateView): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const group of template.groups) for (const field of group.fields) ids[field.systemKey ?? field.key] = field.id;
  return ids;
}

/** Product fixtures through the core, returning what they made; `dir` holds the files they import. */
export function givenProducts(env: TestEnv, dir: string) {
  const g = given(env);
  return {
    /** A library file with distinct text content (text/plain, extension txt unless named otherwise). */
    async textFile(team: GivenTeam, name = `file-${++counter}.txt`): Promise<number> {
      const path = join(dir, `${process.pid}-${++counter}-${name}`);
      await writeFile(path, `content ${counter} ${Math.random()}\n`);
      return (await g.libraryFile(team, { file: path, name })).id;
    },
    /** `count` library text files. */
    async textFiles(team: GivenTeam, count: number, prefix = 'f'): Promise<number[]> {
      const ids: number[] = [];
      for (let i = 0; i < count; i++) ids.push(await this.textFile(team, `${prefix}-${i}.txt`));
      return ids;
    },
    /** A PNG library file of the given size. */
    async image(team: GivenTeam, name = `image-${++counter}.png`, size = { width: 16, height: 12 }): Promise<number> {
      const path = join(dir, `${process.pid}-${++counter}-${name}`);
      await writeImage(path, { ...size, colour: `#${((counter * 7919) % 0xffffff).toString(16).padStart(6, '0')}`, format: 'png' });
      return (await g.libraryFile(team, { file: path, name })).id;
    },
    /** A product created through the core by `key` (editable or manage). */
    async product(key: GivenKey, input: Record<string, unknown> = {}): Promise<ProductRecord> {
      const ctx = await g.ctx(key);
      return (await env.core.catalogue.products.create(ctx, input)).body;
    },
    /** A published product. */
    async published(key: GivenKey, input: Record<string, unknown> = {}): Promise<ProductRecord> {
      const ctx = await g.ctx(key);
      const created = await env.core.catalogue.products.create(ctx, { name: `Published ${++counter}`, ...input });
      return (await env.core.catalogue.products.publish(ctx, created.body.id)).data;
    },
    /** Every product row of a team as text, to prove a refused write changed nothing. */
    async snapshot(teamId: number): Promise<string> {
      const rows = await env.orm.em
        .fork()
        .execute<Array<{ row: string }>>('select row_to_json(p)::text as row from products p where team_id = ? order by id', [teamId]);
      return rows.map((r) => r.row).join('\n');
    },
  };
}
