import { open } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import sharp from 'sharp';

/** What the bytes are, read from the bytes: never from the file name. */
export interface DetectedType {
  mimeType: string;
  /** The usual extension of that type (lower-case, no dot), or null when unknown. */
  extension: string | null;
}

const OCTET_STREAM: DetectedType = { mimeType: 'application/octet-stream', extension: null };
const TEXT_SAMPLE_BYTES = 8192;

/**
 * The MIME type of a file by its content (issue: "MIME by content, not by name"). file-type reads
 * the magic numbers; it reports SVG as generic XML, so sharp's decoder confirms SVG; a file that
 * neither knows and that is valid UTF-8 without NUL bytes is text/plain; anything else is
 * application/octet-stream.
 */
export async function detectType(path: string): Promise<DetectedType> {
  const found = await fileTypeFromFile(path);
  if (found && found.mime !== 'application/xml') return { mimeType: found.mime, extension: found.ext };
  if (await isSvg(path)) return { mimeType: 'image/svg+xml', extension: 'svg' };
  if (found) return { mimeType: found.mime, extension: found.ext };
  return (await looksLikeText(path)) ? { mimeType: 'text/plain', extension: 'txt' } : OCTET_STREAM;
}

async function isSvg(path: string): Promise<boolean> {
  try {
    return (await sharp(path).metadata()).format === 'svg';
  } catch {
    return false;
  }
}

async function looksLikeText(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(TEXT_SAMPLE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, TEXT_SAMPLE_BYTES, 0);
    if (bytesRead === 0) return false;
    const sample = buffer.subarray(0, bytesRead);
    if (sample.includes(0)) return false;
    // stream: true tolerates a multi-byte character cut at the end of the sample
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    return true;
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}
