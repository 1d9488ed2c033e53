import type { FastifyReply } from 'fastify';
import type { PreparedDownload } from '../core/catalogue/products/product-downloads.ts';
import type { Core } from '../core/core.ts';
import { attachment } from './content-disposition.ts';
import { zipStream } from './zip-stream.ts';

/** Answers a prepared download as a streamed ZIP attachment (API downloads and share pages alike). */
export async function replyWithZip(reply: FastifyReply, core: Core, download: PreparedDownload, fileName: string): Promise<FastifyReply> {
  const zip = await zipStream(
    download.files.map((file, i) => ({ name: download.entryNames[i]!, size: file.bytes, open: async () => (await core.catalogue.downloads.open(file))?.stream ?? null })),
    new Date(),
  );
  reply.header('Content-Type', 'application/zip');
  reply.header('Content-Disposition', attachment(fileName));
  reply.header('Download-Record-Id', String(download.recordId));
  reply.header('Content-Length', String(zip.length));
  if (download.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.send(zip.stream);
}
