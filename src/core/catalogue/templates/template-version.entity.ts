import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { ProductInfoTemplate } from './template.entity.ts';

/**
 * One immutable version of a template's definition (spec 3.3, 9): written by every successful
 * create and PATCH, never updated or deleted, kept after the template is deleted because products
 * pin it. `definition` is the full snapshot `{ groups: [...] }` with fields as returned (spec 2.4).
 */
export const TemplateVersion = defineEntity({
  name: 'TemplateVersion',
  tableName: 'template_versions',
  uniques: [{ properties: ['template', 'number'] }],
  properties: {
    id: p.string().length(128).primary(),
    team: () => p.manyToOne(Team),
    template: () => p.manyToOne(ProductInfoTemplate),
    number: p.integer(),
    name: p.string().length(30),
    description: p.string().length(50).nullable(),
    definition: p.json(),
    createdAt: dbTimestamp(),
  },
});
