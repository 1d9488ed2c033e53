import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { describe, expect, it } from 'vitest';
import { MediaObject } from '../../src/core/assets/files/library.schemas.ts';
import { ProductSummaryView, ProductTombstoneView } from '../../src/core/catalogue/products/product.schemas.ts';
import { nullableAwareSerializerFactory, withNullableFlags } from '../../src/rest/serializer.ts';

const media = {
  id: 7,
  name: 'front.jpg',
  mimeType: 'image/jpeg',
  size: '123456',
  width: 800,
  height: 600,
  duration: null,
  previewUrl: 'http://127.0.0.1:8080/files/1/7/preview?exp=1795374339&sig=abc',
  downloadUrl: 'http://127.0.0.1:8080/files/1/7/download?exp=1795374339&sig=abc',
  downloadUrlExpiresAt: '2026-11-22T18:30:00.000000Z',
};

const summary = {
  id: 1,
  name: 'Lamp',
  spu: null,
  description: null,
  status: 'draft',
  brandId: 3,
  categoryId: null,
  ownerUserId: null,
  publishedAt: null,
  createdAt: '2026-11-22T18:00:00.123456Z',
  updatedAt: '2026-11-22T18:00:00.123456Z',
  draftReason: 'name is empty',
  templateId: null,
  templateVersionId: null,
  templateFields: { f1: 'x', f2: [1, 2] },
  cover: media,
  images: [media, { ...media, id: 8, previewUrl: null, width: null, height: null }],
  relatedAssets: [],
};

/** Serializers for a schema that references MediaObject: Fastify's default factory, and the app's. */
function serializers(schema: object) {
  const route = { schema, method: 'GET', url: '/products', httpStatus: '200' };
  const original = SerializerSelector()({ MediaObject }, {})(route);
  const rewritten = nullableAwareSerializerFactory({ MediaObject }, {})(route);
  return { original, rewritten };
}

describe('response serializer: nullable unions become nullable flags (src/rest/serializer.ts)', () => {
  it('rewrites anyOf [X, null] as X with nullable: true, through nested objects and arrays', () => {
    const rewritten = withNullableFlags(MediaObject) as unknown as { properties: Record<string, Record<string, unknown>> };
    expect(rewritten.properties.previewUrl).toMatchObject({ type: 'string', format: 'uri', nullable: true });
    expect(rewritten.properties.previewUrl!.anyOf).toBeUndefined();
    const view = withNullableFlags(ProductSummaryView, (ref) => (ref === 'MediaObject' ? MediaObject : undefined)) as unknown as {
      properties: Record<string, Record<string, unknown>>;
    };
    // a referenced schema is inlined, without its $id (which must stay unique)
    expect(view.properties.cover).toMatchObject({ type: 'object', nullable: true });
    expect(view.properties.cover!.$id).toBeUndefined();
    expect(JSON.stringify(view)).not.toContain('"type":"null"');
  });

  it('leaves the schema it was given unchanged (the validators and the OpenAPI document use it)', () => {
    const before = JSON.stringify(MediaObject);
    withNullableFlags(MediaObject);
    expect(JSON.stringify(MediaObject)).toBe(before);
    expect(JSON.stringify(MediaObject)).toContain('"anyOf"');
  });

  it('keeps unions that are not "something or null" as they are', () => {
    const union = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
    expect(withNullableFlags(union)).toEqual(union);
    const threeWay = { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] };
    expect(withNullableFlags(threeWay)).toEqual(threeWay);
  });

  it('serializes a ProductSummary exactly as the union schema does, nulls and values alike', () => {
    const { original, rewritten } = serializers(ProductSummaryView);
    for (const value of [summary, { ...summary, cover: null, publishedAt: '2026-11-22T18:00:01.000000Z', spu: 'SKU-1' }]) {
      expect(rewritten(value)).toBe(original(value));
      expect(JSON.parse(rewritten(value))).toEqual(value);
    }
  });
});

describe('response serializer: a tagged union is chosen by its tag (src/rest/serializer.ts)', () => {
  const items = { type: 'array', items: { anyOf: [{ $ref: 'ProductSummary' }, { $ref: 'ProductTombstone' }] } };
  const shared = { MediaObject, ProductSummary: ProductSummaryView, ProductTombstone: ProductTombstoneView };
  const resolve = (ref: string) => (shared as Record<string, object>)[ref];
  const tombstone = { id: 9, removed: true, reason: 'deleted', at: '2026-11-22T18:00:02.000000Z' };

  it('rewrites the sync feed items (ProductSummary or ProductTombstone) as if removed is true then ProductTombstone else ProductSummary', () => {
    const rewritten = withNullableFlags(items, resolve) as { items: Record<string, unknown> };
    expect(rewritten.items.anyOf).toBeUndefined();
    expect(rewritten.items).toEqual({
      if: { type: 'object', properties: { removed: { const: true } }, required: ['removed'] },
      then: { $ref: 'ProductTombstone' },
      else: { $ref: 'ProductSummary' },
    });
  });

  it('serializes a page mixing products and tombstones exactly as the anyOf schema does', () => {
    const route = { schema: items, method: 'GET', url: '/products', httpStatus: '200' };
    const original = SerializerSelector()(shared, {})(route);
    const rewritten = nullableAwareSerializerFactory(shared, {})(route);
    const page = [summary, tombstone, { ...summary, id: 2 }];
    expect(rewritten(page)).toBe(original(page));
    expect(JSON.parse(rewritten(page))).toEqual(page);
  });
});
