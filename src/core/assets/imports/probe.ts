import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { parseFile } from 'music-metadata';
import sharp from 'sharp';
import { detectType, type DetectedType } from './mime.ts';

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
async function imageSize(path: string): Promise<{ width: number; height: number } | null> {
  try {
    const meta = await sharp(path).metadata();
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    return width > 0 && height > 0 ? { width, height } : null;
  } catch {
    return null;
  }
}

/** Audio/video duration through music-metadata (MP3, MP4/MOV, WebM/Matroska, Ogg, WAV, FLAC...); null when it cannot tell. */
async function mediaDurationMs(path: string): Promise<number | null> {
  try {
    const parsed = await parseFile(path, { duration: true, skipCovers: true });
    const seconds = parsed.format.duration;
    return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null;
  } catch {
    return null;
  }
}

/** Reads a file's facts from its content: hash, size, MIME type, dimensions, duration. */
export async function probeFile(path: string): Promise<ContentFacts> {
  const [{ sha256, byteSize }, type] = await Promise.all([hashFile(path), detectType(path)]);
  const isImage = type.mimeType.startsWith('image/');
  const isTimed = type.mimeType.startsWith('audio/') || type.mimeType.startsWith('video/');
  const size = isImage ? await imageSize(path) : null;
  const durationMs = isTimed ? await mediaDurationMs(path) : null;
  return { sha256, byteSize, ...type, width: size?.width ?? null, height: size?.height ?? null, durationMs };
}
