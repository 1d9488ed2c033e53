import type { FastifyReply } from 'fastify';
import type { PreparedDownload } from '../core/catalogue/products/product-download.service.ts';
import type { Core } from '../core/core.ts';
import { attachment } from './content-disposition.ts';
import { zipArchive } from './zip-stream.ts';

/**
 * Answers a prepared download as a streamed ZIP attachment (API downloads and share pages alike).
 * The archive is written to the socket directly rather than handed to Fastify as a stream: its
 * writer reuses a few buffers, each only after the socket has taken its bytes, and only a writer
 * that sees each write's completion can know when that is (a piped stream cannot). Once the
 * headers are out, a failure cuts the connection: the client sees fewer bytes than Content-Length.
 * Never throws after the reply is taken over, so callers may keep their error handling around it.
 */
export async function replyWithZip(reply: FastifyReply, core: Core, download: PreparedDownload, fileName: string): Promise<FastifyReply> {
  const zip = zipArchive(
    download.files.map((file, i) => ({ name: download.entryNames[i]!, size: file.bytes, open: () => core.catalogue.downloads.open(file) })),
    new Date(),
  );
  reply.header('Content-Type', 'application/zip');
  reply.header('Content-Disposition', attachment(fileName));
  reply.header('Download-Record-Id', String(download.recordId));
  reply.header('Content-Length', String(zip.length));
  if (download.replayed) reply.header('Idempotent-Replayed', 'true');
  // the response hooks still run (onResponse is bound to the raw response's finish)
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  res.writeHead(reply.statusCode);
  try {
    await zip.write(res);
  } catch (error) {
    reply.log.warn({ err: error, downloadRecordId: download.recordId }, 'download cut before its end');
    res.destroy();
  }
  return reply;
}
