import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { parseFile, parseFromTokenizer } from 'music-metadata';
import sharp from 'sharp';
import { type ContentSource, fileSource } from './content-source.ts';
import { type DetectedType, detectContentType } from './mime.ts';

/** Everything a stored object records about its bytes, read from the file itself. */
export interface ContentFacts extends DetectedType {
  sha256: string;
  byteSize: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

/** SHA-256 and byte count in one streaming pass, so large files never sit in memory. */
async function hashFile(path: string): Promise<{ sha256: string; byteSize: number }> {
  const hash = createHash('sha256');
  let byteSize = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    byteSize += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), byteSize };
}

/**
 * Image dimensions through sharp as displayed (EXIF orientation applied; sharp opens the first
 * frame of an animation). Null when sharp cannot decode the image (e.g. BMP or ICO): such images get no
 * derived preview.
 */
async function imageSize(source: ContentSource): Promise<{ width: number; height: number } | null> {
  try {
    const meta = await sharp(await source.forSharp()).metadata();
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    return width > 0 && height > 0 ? { width, height } : null;
  } catch {
    return null;
  }
}

/** Audio/video duration through music-metadata (MP3, MP4/MOV, WebM/Matroska, Ogg, WAV, FLAC...); null when it cannot tell. */
async function mediaDurationMs(source: ContentSource): Promise<number | null> {
  try {
    const options = { duration: true, skipCovers: true };
    // a file is parsed by its name's extension first, as it always was; an object by its content
    const parsed = source.path !== null ? await parseFile(source.path, options) : await parseTokenized(source, options);
    const seconds = parsed.format.duration;
    return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null;
  } catch {
    return null;
  }
}

async function parseTokenized(source: ContentSource, options: { duration: boolean; skipCovers: boolean }) {
  const tokenizer = await source.tokenizer();
  return parseFromTokenizer(tokenizer, options).finally(() => tokenizer.close());
}

/** Reads a file's facts from its content: hash, size, MIME type, dimensions, duration. */
export async function probeFile(path: string): Promise<ContentFacts> {
  const source = await fileSource(path);
  const [hashed, type] = await Promise.all([hashFile(path), detectContentType(source)]);
  return { ...hashed, ...(await probeType(source, type)) };
}

/**
 * The facts of content whose hash is already known (an upload hashed as it arrived), read where
 * the bytes lie (content-source.ts): nothing is copied to be probed.
 */
export async function probeContent(source: ContentSource, hashed: { sha256: string; byteSize: number }): Promise<ContentFacts> {
  return { ...hashed, ...(await probeType(source, await detectContentType(source))) };
}

async function probeType(source: ContentSource, type: DetectedType): Promise<Omit<ContentFacts, 'sha256' | 'byteSize'>> {
  const isImage = type.mimeType.startsWith('image/');
  const isTimed = type.mimeType.startsWith('audio/') || type.mimeType.startsWith('video/');
  const size = isImage ? await imageSize(source) : null;
  const durationMs = isTimed ? await mediaDurationMs(source) : null;
  return { ...type, width: size?.width ?? null, height: size?.height ?? null, durationMs };
}
