import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { Brand } from '../brands/brand.entity.ts';
import { ProductInfoTemplate } from './template.entity.ts';

/** A brand bound to a template; the primary key makes a brand bound to at most one template. */
export const TemplateBrandBinding = defineEntity({
  name: 'TemplateBrandBinding',
  tableName: 'template_brand_bindings',
  properties: {
    brand: () => p.manyToOne(Brand).primary(),
    team: () => p.manyToOne(Team),
    template: () => p.manyToOne(ProductInfoTemplate).index(),
  },
});
