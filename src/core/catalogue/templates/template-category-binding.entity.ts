import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { Category } from '../categories/category.entity.ts';
import { ProductInfoTemplate } from './template.entity.ts';

/** A category bound to a template; the primary key makes a category bound to at most one template. */
export const TemplateCategoryBinding = defineEntity({
  name: 'TemplateCategoryBinding',
  tableName: 'template_category_bindings',
  properties: {
    category: () => p.manyToOne(Category).primary(),
    team: () => p.manyToOne(Team),
    template: () => p.manyToOne(ProductInfoTemplate).index(),
  },
});
