import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { objectKey } from '../assets/imports/library-import.service.ts';
import type { IncomingObject, Storage } from '../assets/storage/storage.ts';
import { type DomainError, invalid } from '../platform/errors.ts';
import { OutboundFailedError, type OutboundGuard, OutboundRefusedError } from '../platform/outbound/outbound-guard.ts';

/**
 * An asset's bytes for a task: downloaded into storage and not yet placed under its key
 * (`incoming`), or a caller's local file (`path`, the CLI's `--file`) to copy in.
 */
export interface DownloadedAsset {
  name: string;
  url: string | null;
  sha256: string;
  byteSize: number;
  mimeType: string | null;
  extension: string | null;
  source: { incoming: IncomingObject } | { path: string };
}

/** An asset URL the outbound guard refused, as `400 invalid_payload:asset_url_*` naming the asset's field (docs/approvals.md). */
export function assetUrlRefused(e: OutboundRefusedError, field: string): DomainError {
  const reason = e.reason === 'private_address' ? 'asset_url_not_public' : e.reason === 'host_unresolvable' ? 'asset_url_unresolvable' : 'asset_url_invalid';
  return invalid(field, e.message, reason);
}

/** Why a download failed, as the reason of `400 invalid_payload:<reason>` (docs/approvals.md). */
function downloadFailure(e: unknown, field: string): Error {
  if (e instanceof OutboundRefusedError) return assetUrlRefused(e, field);
  if (e instanceof OutboundFailedError) {
    const reason = e.kind === 'timeout' ? 'asset_download_timeout' : e.kind === 'too_large' ? 'asset_too_large' : 'asset_download_failed';
    return invalid(field, e.message, reason);
  }
  return e as Error;
}

/**
 * Downloads the assets of a request through the outbound guard straight into storage, hashing as
 * they stream: within `timeoutMs` for each whole download and `maxBytes` each (spec 4.8). The bytes
 * are written once, where they will stay, but not yet under their key (storeAssets places them);
 * on any failure every download is dropped, so nothing stays behind. `discard` drops what was not
 * placed; call it when the request ends, however it ends.
 */
export async function downloadAssets(
  guard: OutboundGuard,
  storage: Storage,
  assets: { name?: string; url: string; mimeType?: string | null; extension?: string | null }[],
  limits: { timeoutMs: number; maxBytes: number },
): Promise<{ assets: DownloadedAsset[]; discard: () => Promise<void> }> {
  const incoming: IncomingObject[] = [];
  const discard = async () => {
    await Promise.all(incoming.map((object) => object.discard()));
  };
  try {
    const downloaded: DownloadedAsset[] = [];
    for (const [i, asset] of assets.entries()) {
      const object = await storage.receive();
      incoming.push(object);
      const hash = createHash('sha256');
      let result: Awaited<ReturnType<OutboundGuard['download']>>;
      try {
        result = await guard.download(asset.url, {
          ...limits,
          sink: (chunk) => {
            hash.update(chunk);
            return object.write(chunk);
          },
        });
      } catch (e) {
        throw downloadFailure(e, `assets[${i}].url`);
      }
      const name = asset.name || decodeURIComponent(new URL(asset.url).pathname.split('/').pop() || `asset-${i + 1}`);
      downloaded.push({
        name,
        url: asset.url,
        sha256: hash.digest('hex'),
        byteSize: result.bytes,
        mimeType: asset.mimeType ?? result.contentType,
        extension: asset.extension ?? null,
        source: { incoming: object },
      });
    }
    return { assets: downloaded, discard };
  } catch (e) {
    await discard();
    throw e;
  }
}

/**
 * Puts the bytes under their content-addressed keys; returns the keys that were new (to remove if
 * the task does not commit). Downloads are placed where they were written (no copy); a caller's own
 * files (the CLI's `--file`) are copied.
 */
export async function storeAssets(storage: Storage, assets: DownloadedAsset[]): Promise<string[]> {
  const added: string[] = [];
  for (const asset of assets) {
    const key = objectKey(asset.sha256);
    if ('incoming' in asset.source) {
      if (await asset.source.incoming.place(key)) added.push(key);
      continue;
    }
    if (await storage.exists(key)) continue;
    await storage.putStream(key, createReadStream(asset.source.path));
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
    assets.push({ name: basename(path), url: null, sha256: hash.digest('hex'), byteSize: info.size, mimeType: null, extension: null, source: { path } });
  }
  return assets;
}
