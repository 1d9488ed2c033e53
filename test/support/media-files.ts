import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';

/** A temporary directory for a test file's inputs or STORAGE_DIR, removed by `remove()`. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `shelf-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A solid-colour image of known size, written with sharp. */
export async function writeImage(path: string, options: { width: number; height: number; colour: string; format: 'png' | 'jpeg' | 'webp' }): Promise<Buffer> {
  const image = sharp({ create: { width: options.width, height: options.height, channels: 3, background: options.colour } });
  const bytes = await image.toFormat(options.format).toBuffer();
  await writeFile(path, bytes);
  return bytes;
}

/** A 24-bit BMP: an image type that file-type recognises but sharp cannot decode. */
export async function writeBmp(path: string, width: number, height: number): Promise<Buffer> {
  const rowSize = Math.ceil((width * 3) / 4) * 4;
  const pixels = rowSize * height;
  const bytes = Buffer.alloc(54 + pixels, 0x7f);
  bytes.write('BM', 0, 'ascii');
  bytes.writeUInt32LE(54 + pixels, 2);
  bytes.writeUInt32LE(0, 6);
  bytes.writeUInt32LE(54, 10);
  bytes.writeUInt32LE(40, 14);
  bytes.writeInt32LE(width, 18);
  bytes.writeInt32LE(height, 22);
  bytes.writeUInt16LE(1, 26);
  bytes.writeUInt16LE(24, 28);
  bytes.writeUInt32LE(0, 30);
  bytes.writeUInt32LE(pixels, 34);
  bytes.writeInt32LE(2835, 38);
  bytes.writeInt32LE(2835, 42);
  bytes.writeUInt32LE(0, 46);
  bytes.writeUInt32LE(0, 50);
  await writeFile(path, bytes);
  return bytes;
}

/** A mono 8-bit PCM WAV of silence lasting `milliseconds` at 8 kHz. */
export async function writeWav(path: string, milliseconds: number): Promise<Buffer> {
  const rate = 8000;
  const samples = (rate * milliseconds) / 1000;
  const bytes = Buffer.alloc(44 + samples, 0x80);
  bytes.write('RIFF', 0, 'ascii');
  bytes.writeUInt32LE(36 + samples, 4);
  bytes.write('WAVE', 8, 'ascii');
  bytes.write('fmt ', 12, 'ascii');
  bytes.writeUInt32LE(16, 16);
  bytes.writeUInt16LE(1, 20);
  bytes.writeUInt16LE(1, 22);
  bytes.writeUInt32LE(rate, 24);
  bytes.writeUInt32LE(rate, 28);
  bytes.writeUInt16LE(1, 32);
  bytes.writeUInt16LE(8, 34);
  bytes.write('data', 36, 'ascii');
  bytes.writeUInt32LE(samples, 40);
  await writeFile(path, bytes);
  return bytes;
}
