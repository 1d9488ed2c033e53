import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invalid } from '../platform/errors.ts';
import { OutboundFailedError, OutboundRefusedError, type OutboundGuard } from '../platform/outbound/outbound-guard.ts';
import { objectKey } from '../assets/imports/import.ts';
import type { Storage } from '../assets/storage/storage.ts';

/** A downloaded asset, in a temporary file until the task that reviews it commits. */
export interface DownloadedAsset {
  name: string;
  url: string | null;
  sha256: string;
  byteSize: number;
  mimeType: string | null;
  extension: string | null;
  path: string;
}

/** Why a download failed, as the reason of `400 invalid_payload:<reason>` (docs/approvals.md). */
function downloadFailure(e: unknown, field: string): Error {
  if (e instanceof OutboundRefusedError) {
    const reason = e.reason === 'private_address' ? 'asset_url_not_public' : e.reason === 'host_unresolvable' ? 'asset_url_unresolvable' : 'asset_url_invalid';
    return invalid(field, e.message, reason);
  }
  if (e instanceof OutboundFailedError) {
    const reason = e.kind === 'timeout' ? 'asset_download_timeout' : e.kind === 'too_large' ? 'asset_too_large' : 'asset_download_failed';
    return invalid(field, e.message, reason);
  }
  return e as Error;
}

/**
 * Downloads the assets of a request through the outbound guard into temporary files, hashing as
 * they stream: within `timeoutMs` for each whole download and `maxBytes` each (spec 4.8). Nothing
 * reaches storage here; on any failure every temporary file is removed.
 */
export async function downloadAssets(
  guard: OutboundGuard,
  assets: { name?: string; url: string; mimeType?: string | null; extension?: string | null }[],
  limits: { timeoutMs: number; maxBytes: number },
): Promise<{ assets: DownloadedAsset[]; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'shelf-approval-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const downloaded: DownloadedAsset[] = [];
    for (const [i, asset] of assets.entries()) {
      const path = join(dir, String(i));
      // a large write buffer: with the default 16 KiB, waiting for drains made a 10 MB download take half again as long
      const file = createWriteStream(path, { highWaterMark: 4 * 1024 * 1024 });
      const hash = createHash('sha256');
      try {
        const result = await guard.download(asset.url, {
          ...limits,
          sink: (chunk) => {
            hash.update(chunk);
            if (!file.write(chunk)) return new Promise<void>((resolve) => file.once('drain', () => resolve()));
          },
        });
        await new Promise<void>((resolve, reject) => file.end((e?: Error | null) => (e ? reject(e) : resolve())));
        const name = asset.name || decodeURIComponent(new URL(asset.url).pathname.split('/').pop() || `asset-${i + 1}`);
        downloaded.push({ name, url: asset.url, sha256: hash.digest('hex'), byteSize: result.bytes, mimeType: asset.mimeType ?? result.contentType, extension: asset.extension ?? null, path });
      } catch (e) {
        file.destroy();
        throw downloadFailure(e, `assets[${i}].url`);
      }
    }
    return { assets: downloaded, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/**
 * Puts the bytes into content-addressed storage; returns the keys that were new (to remove if the
 * task does not commit). Downloads (`owned`) are moved in rather than copied; a caller's own files
 * (the CLI's `--file`) are copied.
 */
export async function storeAssets(storage: Storage, assets: DownloadedAsset[], owned: boolean): Promise<string[]> {
  const added: string[] = [];
  for (const asset of assets) {
    const key = objectKey(asset.sha256);
    if (await storage.exists(key)) continue;
    if (owned) await storage.adopt(key, asset.path);
    else await storage.putStream(key, createReadStream(asset.path));
    added.push(key);
  }
  return added;
}

/** Local files (CLI `approval resubmit --file`) described as downloaded assets: hashed in place, nothing copied yet. */
export async function localAssets(paths: string[]): Promise<DownloadedAsset[]> {
  const assets: DownloadedAsset[] = [];
  for (const [i, path] of paths.entries()) {
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) throw invalid(`file[${i}]`, 'no such regular file', 'file_not_found');
    const hash = createHash('sha256');
    await pipeline(createReadStream(path), hash);
    assets.push({ name: basename(path), url: null, sha256: hash.digest('hex'), byteSize: info.size, mimeType: null, extension: null, path });
  }
  return assets;
}
