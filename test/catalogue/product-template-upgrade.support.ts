import { expect } from 'vitest';
import type { TemplateView } from '../../src/core/catalogue/templates/template.schemas.ts';
import type { GivenKey } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';

/** The field ids of a template made by `upgradeTemplate`, by key. */
export interface UpgradeFields {
  colour: string;
  weight: string;
  legacy: string;
  datasheet: string;
  note: string;
  material: string;
}

/**
 * What the template-upgrade test files share: the product world (team A with a key of every role,
 * team B's manage key as the stranger) and a template with three versions:
 * - v1: colour (select red/blue), weight (number), legacy (text), datasheet (file, up to 3), note (text);
 * - v2: legacy removed; colour offers red/green (blue gone); weight retyped to text; datasheet accepts
 *   only .pdf; material (text, required) added; note unchanged;
 * - v3: the same definition as v2 with another description (a metadata-only PATCH).
 */
export function useTemplateUpgrade(worldOptions: { team?: string; other?: string } = {}) {
  const world: ProductWorld = useProductWorld({ team: 'Upgrade', other: 'UpgradeOther', ...worldOptions });

  const option = (value: string, sortOrder: number) => ({ value, label: value.toUpperCase(), sortOrder });

  /** A template at version 1 and, with `versions` 2 or 3, moved on to them (products made in between pin v1). */
  async function upgradeTemplate(): Promise<{ template: TemplateView; fields: UpgradeFields; advance: (to: 2 | 3) => Promise<void> }> {
    const template = await world.gt.template(world.keys.manage, {
      groups: [
        {
          name: 'Specs',
          fields: [
            { key: 'colour', name: 'Colour', type: 'select', config: { options: [option('red', 0), option('blue', 1)] } },
            { key: 'weight', name: 'Weight', type: 'number' },
            { key: 'legacy', name: 'Legacy code', type: 'text' },
            { key: 'datasheet', name: 'Datasheet', type: 'file', config: { maxCount: 3 } },
            { key: 'note', name: 'Note', type: 'text' },
          ],
        },
      ],
    });
    const byKey = (key: string) => template.groups.flatMap((g) => g.fields).find((f) => f.key === key)!.id;
    const fields = {
      colour: byKey('colour'),
      weight: byKey('weight'),
      legacy: byKey('legacy'),
      datasheet: byKey('datasheet'),
      note: byKey('note'),
      material: '',
    };
    const group = template.groups[0]!;
    const ctx = await world.g.ctx(world.keys.manage);
    const advance = async (to: 2 | 3) => {
      if (to === 2) {
        const system = group.fields.filter((f) => f.isSystemField).map((f) => ({ id: f.id }));
        const updated = await world.env.core.catalogue.templates.update(ctx, template.id, {
          groups: [
            {
              id: group.id,
              name: group.name,
              fields: [
                ...system,
                { id: fields.colour, config: { options: [option('red', 0), option('green', 1)] } },
                { id: fields.weight, type: 'text' },
                { id: fields.datasheet, config: { maxCount: 3, accept: ['.pdf'] } },
                { id: fields.note },
                { key: 'material', name: 'Material', type: 'text', required: true },
              ],
            },
          ],
        });
        fields.material = updated.data.groups.flatMap((g) => g.fields).find((f) => f.key === 'material')!.id;
      } else {
        await world.env.core.catalogue.templates.update(ctx, template.id, { description: 'v3' });
      }
    };
    return { template, fields, advance };
  }

  const url = (id: number, query = '') => `/v1/products/${id}/template-upgrade${query}`;
  const preview = (id: number, query = '?to=2', key: GivenKey = world.keys.editable) => send(world.env, { url: url(id, query), key: key.key });
  const upgrade = (id: number, options: { query?: string; body?: unknown; ifMatch?: string | null; key?: GivenKey } = {}) =>
    send(world.env, {
      method: 'POST',
      url: url(id, options.query ?? '?to=2'),
      key: (options.key ?? world.keys.editable).key,
      body: options.body,
      headers: options.ifMatch ? { 'if-match': options.ifMatch } : {},
    });
  const etagOf = async (id: number) => (await send(world.env, { url: `/v1/products/${id}`, key: world.keys.manage.key })).headers.etag!;

  /** Every product row and every history and activity row of team A, to prove a refused request changed nothing. */
  async function snapshot(): Promise<string> {
    const teamId = world.team.teamId;
    const [rows] = await world.env.orm.em
      .fork()
      .execute<Array<{ history: number; activity: number }>>(
        'select (select count(*)::int from product_history where team_id = ?) as history, (select count(*)::int from activity_records where team_id = ?) as activity',
        [teamId, teamId],
      );
    return `${await world.gp.snapshot(teamId)}\n${JSON.stringify(rows)}`;
  }

  /** A refused request: its status, code and the field named in details, and nothing changed. */
  async function expectRefused(request: () => Promise<{ status: number; body: any }>, status: number, code: string, field: string): Promise<void> {
    const before = await snapshot();
    const res = await request();
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, data: null, code });
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await snapshot()).toBe(before);
  }

  return { world, upgradeTemplate, preview, upgrade, etagOf, snapshot, expectRefused };
}
