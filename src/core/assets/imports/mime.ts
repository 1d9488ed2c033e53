import { fileTypeFromTokenizer } from 'file-type';
import sharp from 'sharp';
import type { ContentSource } from './content-source.ts';
import { fileSource } from './content-source.ts';

/** What the bytes are, read from the bytes: never from the file name. */
export interface DetectedType {
  mimeType: string;
  /** The usual extension of that type (lower-case, no dot), or null when unknown. */
  extension: string | null;
}

const OCTET_STREAM: DetectedType = { mimeType: 'application/octet-stream', extension: null };
const TEXT_SAMPLE_BYTES = 8192;

/** detectContentType of a local file. */
export async function detectType(path: string): Promise<DetectedType> {
  const source = await fileSource(path);
  return detectContentType(source);
}

/**
 * The MIME type of content by its bytes (issue: "MIME by content, not by name"). file-type reads
 * the magic numbers; it reports SVG as generic XML, so sharp's decoder confirms SVG; content that
 * neither knows and that is valid UTF-8 without NUL bytes is text/plain; anything else is
 * application/octet-stream.
 */
export async function detectContentType(source: ContentSource): Promise<DetectedType> {
  const tokenizer = await source.tokenizer();
  const found = await fileTypeFromTokenizer(tokenizer).finally(() => tokenizer.close());
  if (found && found.mime !== 'application/xml') return { mimeType: found.mime, extension: found.ext };
  const sample = await source.head(TEXT_SAMPLE_BYTES);
  if (await isSvg(source, sample)) return { mimeType: 'image/svg+xml', extension: 'svg' };
  if (found) return { mimeType: found.mime, extension: found.ext };
  return looksLikeText(sample) ? { mimeType: 'text/plain', extension: 'txt' } : OCTET_STREAM;
}

/**
 * Whether sharp decodes the content as SVG. libvips looks for `<svg` near the start before it
 * parses anything, so content without it in the first 8 KiB is not handed over (an object
 * store's content would be read whole for nothing).
 */
async function isSvg(source: ContentSource, sample: Buffer): Promise<boolean> {
  if (!sample.toString('latin1').toLowerCase().includes('<svg')) return false;
  try {
    return (await sharp(await source.forSharp()).metadata()).format === 'svg';
  } catch {
    return false;
  }
}

function looksLikeText(sample: Buffer): boolean {
  if (sample.length === 0) return false;
  if (sample.includes(0)) return false;
  try {
    // stream: true tolerates a multi-byte character cut at the end of the sample
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    return true;
  } catch {
    return false;
  }
}
