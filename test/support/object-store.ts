import { randomUUID } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { S3Storage, type S3StorageOptions } from '../../src/core/assets/storage/s3-storage.ts';

/**
 * The S3 server of the tests: the RADOS Gateway scripts/objectstore.sh starts for `npm test`
 * (S3_ENDPOINT moves it), with that script's fixed test credentials.
 */
export const S3_ENDPOINT = process.env.S3_ENDPOINT || 'http://127.0.0.1:7480';
export const S3_CREDENTIALS = {
  accessKeyId: process.env.SHELF_OBJECTSTORE_ACCESS_KEY || 'shelf-test-access',
  secretAccessKey: process.env.SHELF_OBJECTSTORE_SECRET_KEY || 'shelf-test-secret-key-0123456789',
};

function client(endpoint = S3_ENDPOINT): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: S3_CREDENTIALS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** A bucket of a test file's own, emptied and removed by `remove()`. */
export interface TestBucket {
  name: string;
  /** The settings that make Shelf keep its files in this bucket (for createTestEnv or a child process). */
  env(prefix?: string): Record<string, string>;
  /** An S3Storage on this bucket. */
  storage(options?: Partial<S3StorageOptions>): S3Storage;
  /** Every key in the bucket, sorted. */
  keys(): Promise<string[]>;
  /** Multipart uploads begun and neither completed nor aborted. */
  openUploads(): Promise<number>;
  remove(): Promise<void>;
}

export async function testBucket(): Promise<TestBucket> {
  const name = `shelf-test-${randomUUID().slice(0, 18)}`;
  const s3 = client();
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  const opened: S3Storage[] = [];
  const keys = async () => {
    const all: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: name, ContinuationToken: token }));
      all.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return all.sort();
  };
  return {
    name,
    env: (prefix = '') => ({
      STORAGE_BACKEND: 's3',
      S3_BUCKET: name,
      S3_ENDPOINT,
      S3_PREFIX: prefix,
      AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
    }),
    storage: (options = {}) => {
      const storage = new S3Storage({
        bucket: name,
        endpoint: S3_ENDPOINT,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: S3_CREDENTIALS,
        ...options,
      });
      opened.push(storage);
      return storage;
    },
    keys,
    openUploads: async () => ((await s3.send(new ListMultipartUploadsCommand({ Bucket: name }))).Uploads ?? []).length,
    remove: async () => {
      for (const key of await keys()) await s3.send(new DeleteObjectCommand({ Bucket: name, Key: key }));
      const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: name }));
      for (const upload of uploads.Uploads ?? []) {
        await s3.send(new AbortMultipartUploadCommand({ Bucket: name, Key: upload.Key!, UploadId: upload.UploadId! }));
      }
      // after a radosgw was killed mid-upload (the fault tests) the gateway takes 30 s to delete the
      // emptied bucket; an empty bucket left on the throwaway cluster costs nothing, so wait 5 s at most
      await s3.send(new DeleteBucketCommand({ Bucket: name }), { abortSignal: AbortSignal.timeout(5000) }).catch(() => {});
      await Promise.all(opened.map((storage) => storage.close()));
      s3.destroy();
    },
  };
}
