import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import './types/brand.ts';
import './types/category.ts';
import './types/json.ts';
import './types/library-folder.ts';
import './types/library-tag.ts';
import './types/image-content-analysis.ts';
import './types/file-validity.ts';
import './types/asset-item.ts';
import './types/asset-search.ts';
import './types/share-search.ts';
import './types/custom-metadata.ts';
import './types/recycle-bin.ts';
import './types/version-lines.ts';
import './types/pending-inbound.ts';
import './types/uploads.ts';
import './types/product.ts';
import './types/product-sync.ts';
import './types/template.ts';
import './types/webhook.ts';
import './types/approval.ts';
import './types/activity.ts';
import './types/product-share.ts';
import './types/product-template-upgrade.ts';

/** The schema: every types file registers itself on the builder when imported above. */
export const schema = builder.toSchema();

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
