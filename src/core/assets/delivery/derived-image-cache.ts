import type { Readable } from 'node:stream';
import { DomainError } from '../../platform/errors.ts';
import type { Opened, Storage } from '../storage/storage.ts';
import { HotBytes } from './hot-bytes.ts';

/**
 * Images derived from stored objects (previews, processed `publicUrl` images), made on first
 * request and cached in storage under a content- and recipe-addressed key.
 *
 * Made once: within a process, concurrent first requests share one in-flight derivation; across
 * processes each may derive, but the key depends only on the content and the recipe and storage
 * publishes by atomic rename, so every reader sees one complete, identical file.
 */
export class DerivedImageCache {
  private readonly storage: Storage;
  private readonly inFlight = new Map<string, Promise<string>>();
  /** What a request that cannot be derived is told (404 not_found). */
  private readonly cannotDerive: string;
  /** Recently served images in memory (hot-bytes.ts): 16 MiB, each at most 1 MiB. */
  readonly hot = new HotBytes({ maxBytes: 16 * 2 ** 20, maxItemBytes: 2 ** 20 });
  /** How many images this process derived (observability, tests and the benchmark). */
  derivations = 0;

  constructor(storage: Storage, cannotDerive: string) {
    this.storage = storage;
    this.cannotDerive = cannotDerive;
  }

  /**
   * The bytes at `key`, derived from the object at `sourceKey` by `make` first when not cached
   * yet. A cached image is opened straight away and, once served, kept in memory (hot-bytes.ts).
   */
  protected openDerived(key: string, sourceKey: string, make: (source: Readable) => Promise<Buffer>): Promise<Opened> {
    return this.hot.openThrough(key, this.storage, () => this.ensure(key, sourceKey, make));
  }

  private async ensure(key: string, sourceKey: string, make: (source: Readable) => Promise<Buffer>): Promise<string> {
    if (await this.storage.exists(key)) return key;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.derive(key, sourceKey, make).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async derive(key: string, sourceKey: string, make: (source: Readable) => Promise<Buffer>): Promise<string> {
    // another process may have finished it while this one waited its turn
    if (await this.storage.exists(key)) return key;
    const source = await this.storage.open(sourceKey);
    if (!source) throw new Error(`stored object ${sourceKey} is missing`);
    // a failure to read the stored bytes is the service's fault (500), not the image's; and it must
    // end the request even where the image library does not notice its input failing (sharp's
    // toBuffer never settles when the stream piped into it is destroyed)
    let readFailure: Error | undefined;
    const failedRead = new Promise<never>((_, reject) =>
      source.stream.once('error', (error: Error) => {
        readFailure = error;
        reject(error);
      }),
    );
    failedRead.catch(() => undefined);
    let bytes: Buffer;
    try {
      bytes = await Promise.race([make(source.stream), failedRead]);
    } catch {
      if (readFailure) throw readFailure;
      // e.g. a truncated image whose header could be read at import: nothing to derive, every time
      throw new DomainError('not_found', this.cannotDerive);
    }
    await this.storage.put(key, bytes);
    this.derivations++;
    return key;
  }
}
