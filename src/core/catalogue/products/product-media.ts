import type { LibraryFileView } from '../../assets/files/library.schemas.ts';
import type { LibraryService } from '../../assets/files/library.service.ts';
import type { Ctx } from '../../platform/ctx.ts';
import { type FieldIssue, invalidFields } from '../../platform/errors.ts';
import { PRODUCT_LIMITS } from './product.schemas.ts';
import type { MediaFieldInput } from './product-fields.ts';
import { mediaReferenceCount, type ProductRecord } from './product-projection.ts';

/*
 * Product media references (spec 4.5 "Media"): only live file-path IDs of the caller's library, at
 * most 100 references per product, custom media within the pinned field's limits. Files are read
 * through the library (core.assets.library.findFilesByIds), which filters by team: another team's ids
 * simply are not found.
 */

/** The media a write supplies; undefined: that list is not part of the write. */
export interface MediaWrite {
  coverFileId?: number | null;
  imageFileIds?: number[];
  relatedFileIds?: number[];
  fields: MediaFieldInput[];
}

const BYTES_PER_MB = 1024 * 1024;

/** Whether a field's `accept` list admits a file: MIME types (`image/png`), wildcards (`image/*`), extensions (`.pdf` or `pdf`). */
function accepts(accept: readonly string[], file: Pick<LibraryFileView, 'mimeType' | 'extension'>): boolean {
  const mime = file.mimeType.toLowerCase();
  const extension = (file.extension ?? '').toLowerCase();
  return accept.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry === '*' || entry === '*/*') return true;
    if (entry.endsWith('/*')) return mime.startsWith(entry.slice(0, -1));
    if (entry.includes('/')) return mime === entry;
    return extension !== '' && extension === entry.replace(/^\./, '');
  });
}

/** The limits of a custom image/file field (spec 2.4 config) that a file breaks, or null (template upgrades check kept files with it too). */
export function fieldLimitProblem(input: MediaFieldInput, file: LibraryFileView): string | null {
  const { config, type } = input.field;
  if (type === 'image' && !file.mimeType.startsWith('image/')) return `file ${file.id} is not an image`;
  const maxSizeMB = config.maxSizeMB as number | undefined;
  if (maxSizeMB !== undefined && Number(file.size) > maxSizeMB * BYTES_PER_MB) return `file ${file.id} is larger than ${maxSizeMB} MB`;
  const accept = config.accept as string[] | undefined;
  if (accept !== undefined && accept.length > 0 && !accepts(accept, file)) return `file ${file.id} is not of an accepted type (${accept.join(', ')})`;
  return null;
}

/**
 * Checks the references a write supplies: each must be a live file of the caller's library, and
 * custom values must fit their field. Throws 422 validation_failed naming every offending path;
 * the transaction then writes nothing.
 */
export async function checkMediaWrite(tx: Ctx, library: LibraryService, write: MediaWrite): Promise<void> {
  const ids = new Set<number>();
  if (write.coverFileId != null) ids.add(write.coverFileId);
  for (const id of write.imageFileIds ?? []) ids.add(id);
  for (const id of write.relatedFileIds ?? []) ids.add(id);
  for (const input of write.fields) for (const id of input.ids) ids.add(id);
  if (ids.size === 0) return;
  const files = new Map((await library.findFilesByIds(tx, [...ids])).map((f) => [f.id, f]));
  const issues: FieldIssue[] = [];
  const missing = (field: string, id: number) => {
    if (!files.has(id)) issues.push({ field, message: `${id} is not a live file of your library` });
  };
  if (write.coverFileId != null) missing('coverAssetId', write.coverFileId);
  for (const [i, id] of (write.imageFileIds ?? []).entries()) missing(`imageAssetIds[${i}]`, id);
  for (const [i, id] of (write.relatedFileIds ?? []).entries()) missing(`relatedAssetIds[${i}]`, id);
  for (const input of write.fields) {
    for (const [i, id] of input.ids.entries()) {
      const path = `templateFields.${input.field.id}[${i}]`;
      const file = files.get(id);
      if (!file) {
        missing(path, id);
        continue;
      }
      const problem = fieldLimitProblem(input, file);
      if (problem) issues.push({ field: path, message: problem });
    }
  }
  if (issues.length > 0) throw invalidFields(issues);
}

/** Spec 4.5 / 8: at most 100 media references per product, counted on the product as it would be stored. */
export function checkMediaTotal(result: Pick<ProductRecord, 'coverFileId' | 'imageFileIds' | 'relatedFileIds' | 'mediaFields'>): void {
  const count = mediaReferenceCount(result);
  if (count > PRODUCT_LIMITS.mediaTotal) {
    throw invalidFields([
      {
        field: 'media',
        message: `${count} media references; at most ${PRODUCT_LIMITS.mediaTotal} across cover, images, related assets and custom media fields`,
      },
    ]);
  }
}

/** References just checked live: each shows itself. */
export function checkedLive(ids: Iterable<number>): Map<number, number> {
  return new Map([...ids].map((id) => [id, id]));
}

/** Every file-path id stored on a product (cover, images, related, custom), for media_file_ids. */
export function allFileIds(record: Pick<ProductRecord, 'coverFileId' | 'imageFileIds' | 'relatedFileIds' | 'mediaFields'>): number[] {
  const ids = new Set<number>([...record.imageFileIds, ...record.relatedFileIds]);
  if (record.coverFileId !== null) ids.add(record.coverFileId);
  for (const list of Object.values(record.mediaFields)) for (const id of list) ids.add(id);
  return [...ids].sort((a, b) => a - b);
}
