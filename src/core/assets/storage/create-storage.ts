import type { Config } from '../../../config.ts';
import { S3Storage } from './s3-storage.ts';
import { LocalDiskStorage, type Storage } from './storage.ts';

/**
 * The storage the configuration names (STORAGE_BACKEND): local disk under STORAGE_DIR, or an S3
 * bucket with the AWS SDK's default credential chain. Every byte Shelf keeps goes through it.
 */
export function createStorage(config: Pick<Config, 'storageDir' | 'storage'>): LocalDiskStorage | S3Storage {
  const settings = config.storage;
  if (settings.backend === 'local') return new LocalDiskStorage(config.storageDir);
  return new S3Storage({
    bucket: settings.bucket,
    prefix: settings.prefix,
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
  });
}

export type { Storage };
