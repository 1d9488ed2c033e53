import type { Config } from '../../../config.ts';
import { DomainError } from '../../platform/errors.ts';
import { S3Storage } from './s3-storage.ts';
import { LocalDiskStorage, type Storage } from './storage.ts';

/**
 * The storage the configuration names (STORAGE_BACKEND), or the one `backend` asks for (the
 * operator's `storage copy`): local disk under STORAGE_DIR, or the S3_* bucket with the AWS SDK's
 * credential chain. Every byte Shelf keeps goes through it.
 */
export function createStorage(
  config: Pick<Config, 'storageDir' | 'storage' | 's3'>,
  backend: 'local' | 's3' = config.storage.backend,
): LocalDiskStorage | S3Storage {
  if (backend === 'local') return new LocalDiskStorage(config.storageDir);
  if (!config.s3)
    throw new DomainError('validation_failed', 'S3_BUCKET is not set: there is no S3 store to use', [{ field: 'S3_BUCKET', message: 'is not set' }]);
  return new S3Storage({ ...config.s3 });
}

export type { Storage };
