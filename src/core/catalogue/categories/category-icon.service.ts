import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { requireTeam } from '../../access/require-team.ts';
import type { Storage } from '../../assets/storage/storage.ts';
import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { invalid } from '../../platform/errors.ts';
import { isResourceId } from '../../platform/ids.ts';
import { insertCategoryIcon, isCategoryIconOfTeam } from './category-icons.queries.ts';

/** Icons are small: at most 1 MiB and 4096 pixels a side (docs/categories.md). */
export const MAX_ICON_BYTES = 1_048_576;
export const MAX_ICON_SIDE = 4096;

/** Formats accepted as category icons, by the format sharp detects in the bytes, with their MIME type. */
const ICON_FORMATS: Record<string, { mimeType: string; extension: string }> = {
  png: { mimeType: 'image/png', extension: 'png' },
  jpeg: { mimeType: 'image/jpeg', extension: 'jpg' },
  webp: { mimeType: 'image/webp', extension: 'webp' },
  gif: { mimeType: 'image/gif', extension: 'gif' },
  svg: { mimeType: 'image/svg+xml', extension: 'svg' },
};

interface IconImage {
  mimeType: string;
  extension: string;
  width: number;
  height: number;
}

/**
 * Identifies the image by its content (never its file name) and decodes it fully, so a renamed
 * text file, a truncated PNG or an unsupported format is refused before anything is stored.
 */
async function inspectIcon(bytes: Buffer): Promise<IconImage> {
  if (bytes.length === 0) throw invalid('file', 'is empty');
  if (bytes.length > MAX_ICON_BYTES) throw invalid('file', `must be at most ${MAX_ICON_BYTES} bytes`);
  let format: string | undefined;
  let width: number | undefined;
  let height: number | undefined;
  try {
    ({ format, width, height } = await sharp(bytes).metadata());
  } catch {
    throw invalid('file', 'is not an image (png, jpeg, webp, gif or svg)');
  }
  const known = format ? ICON_FORMATS[format] : undefined;
  if (!known) throw invalid('file', `is a ${format ?? 'unknown'} image; icons must be png, jpeg, webp, gif or svg`);
  if (!width || !height) throw invalid('file', 'has no dimensions');
  if (width > MAX_ICON_SIDE || height > MAX_ICON_SIDE) throw invalid('file', `must be at most ${MAX_ICON_SIDE} pixels on each side`);
  try {
    await sharp(bytes, { failOn: 'error' }).toBuffer();
  } catch {
    throw invalid('file', 'is a damaged image');
  }
  return { ...known, width, height };
}

/** Category icon assets (spec 2.1 "Category iconAssetId", CONTRACT.md `category-icon import`). */
export class CategoryIconService {
  private readonly storage: Storage;

  constructor(options: { storage: Storage }) {
    this.storage = options.storage;
  }

  /** category-icon import: validates the image by content, stores it under STORAGE_DIR and records it for the team. */
  async importIcon(ctx: UnitOfWork, input: { teamId: number; bytes: Buffer }): Promise<{ id: number }> {
    if (!isResourceId(input.teamId)) throw invalid('team', 'must be a positive integer id');
    await requireTeam(ctx, input.teamId);
    const image = await inspectIcon(input.bytes);
    const storageKey = `category-icons/${input.teamId}/${randomUUID()}.${image.extension}`;
    await this.storage.put(storageKey, input.bytes);
    try {
      const id = await insertCategoryIcon(ctx, {
        teamId: input.teamId,
        storageKey,
        mimeType: image.mimeType,
        byteSize: input.bytes.length,
        width: image.width,
        height: image.height,
      });
      return { id };
    } catch (e) {
      // no row points at the file, so nothing would ever read or clean it up
      await this.storage.remove(storageKey);
      throw e;
    }
  }

  /** Whether `id` is a category icon of the caller's team (spec 4.3 iconAssetId rule). */
  async isIconOfTeam(tx: TeamScope, id: number): Promise<boolean> {
    return isCategoryIconOfTeam(tx, id);
  }
}
