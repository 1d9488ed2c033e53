import { readdir } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectKey } from '../../src/core/assets/imports/library-import.service.ts';
import { type TestBucket, testBucket } from '../support/object-store.ts';
import { useProductWorld } from '../support/product-world.ts';
import { unzip } from '../support/unzip.ts';

/** Product ZIP downloads read their entries from an S3 bucket (STORAGE_BACKEND=s3) as they do from disk. */
let bucket: TestBucket;
const options = { team: 'S3 downloads', env: {} as Record<string, string> };
beforeAll(async () => {
  bucket = await testBucket();
  Object.assign(options.env, bucket.env('shelf'));
});
afterAll(async () => {
  await bucket?.remove();
});
const world = useProductWorld(options);

/** A library file's bytes as the bucket holds them. */
async function storedBytes(fileId: number): Promise<Buffer> {
  const [row] = await world.env.orm.em
    .fork()
    .execute<{ sha256: string }[]>('select o.sha256 from library_files f join stored_objects o on o.id = f.object_id where f.id = ?', [fileId]);
  const opened = await bucket.storage({ prefix: 'shelf' }).open(objectKey(row!.sha256));
  return buffer(opened!.stream);
}

describe('product downloads from an S3 bucket', () => {
  it("delivers the product's media as one ZIP read from the bucket, byte for byte, with nothing on local disk", async () => {
    const { env, gp, team, keys } = world;
    const image = await gp.image(team, 'front.png');
    const text = await gp.textFile(team, 'manual.txt');
    const product = await gp.published(keys.editable, { imageAssetIds: [image], relatedAssetIds: [text] });
    const res = await env.app.inject({ method: 'POST', url: `/v1/products/${product.id}/downloads`, headers: { authorization: `Bearer ${keys.usable.key}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    const entries = await unzip(res.rawPayload);
    expect([...entries.keys()]).toEqual(['front.png', 'manual.txt']);
    expect(entries.get('front.png')!.equals(await storedBytes(image))).toBe(true);
    expect(entries.get('manual.txt')!.equals(await storedBytes(text))).toBe(true);
    expect(await readdir(world.storage.path)).toEqual([]);
  });
});
