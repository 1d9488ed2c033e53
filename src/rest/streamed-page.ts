import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';
import type { AnswerBudget, LeasedBatch, SizedPage } from '../core/platform/answer-budget.ts';
import { whenResponseCloses } from './response-closed.ts';

/** Serializes one value with the route's compiled serializer for its schema. */
type Serialize = (value: unknown) => string;

/**
 * Answers a list as its envelope (spec 2.1, the same bytes as a built one) written batch by batch:
 * each item is serialized and handed to the socket in turn, and a batch's budget lease released
 * before the next batch is read (docs/api-conventions.md "Large answers"). The first batch is read before
 * the status line, so a budget refusal or a failed read is still a proper error envelope; a failure
 * after that can only cut the connection (the client sees a truncated body, never a wrong one).
 */
export async function sendSizedPage<T, P>(
  reply: FastifyReply,
  options: {
    requestId: string;
    page: SizedPage<T, P>;
    budget: AnswerBudget;
    /** The schema of one item of `data` and of `pagination`, as the route's response declares them. */
    itemSchema: TSchema;
    paginationSchema: TSchema;
  },
): Promise<FastifyReply> {
  const { page, requestId } = options;
  const serializeItem = reply.compileSerializationSchema(options.itemSchema as unknown as Record<string, unknown>) as Serialize;
  const serializePagination = reply.compileSerializationSchema(options.paginationSchema as unknown as Record<string, unknown>) as Serialize;
  return sendStreamedArray(reply, {
    page,
    budget: options.budget,
    serializeItem,
    head: '{"success":true,"data":[',
    tail: `],"code":null,"message":null,"requestId":${JSON.stringify(requestId)},"pagination":${serializePagination(page.pagination)}}`,
  });
}

/**
 * The same for any envelope with one array in it (the open API's `result`, for instance): `head`
 * is written before the first item, `tail` after the last; the caller makes sure they are the bytes
 * its built envelope would have around the array.
 */
export async function sendStreamedArray<T, P>(
  reply: FastifyReply,
  options: { page: SizedPage<T, P>; budget: AnswerBudget; serializeItem: Serialize; head: string; tail: string },
): Promise<FastifyReply> {
  const batches = options.page.batches(options.budget);
  const first = await batches.next();
  // a client gone before the first chunk is pulled never starts the generator, so its finally would
  // not run: the first batch's lease is also given back when the response closes (release is idempotent)
  if (!first.done) whenResponseCloses(reply.raw, first.value.lease.release);
  const body = Readable.from(envelopeChunks(reply.raw, first, batches, options.serializeItem, options.head, options.tail), { objectMode: false });
  return reply.type('application/json; charset=utf-8').send(body);
}

/**
 * Resolves once the response's socket has taken what it was given down to its high-water mark (at
 * once when the response is closed, or has no socket of its own: inject's collects the body itself).
 */
function drained(response: ServerResponse): Promise<void> {
  const socket = response.socket;
  if (response.closed || socket === null || !socket.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('close', done);
  });
}

/** Characters written to the socket at a time. */
const CHUNK_CHARS = 64 * 1024;

async function* envelopeChunks<T>(
  response: ServerResponse,
  first: IteratorResult<LeasedBatch<T>>,
  batches: AsyncGenerator<LeasedBatch<T>>,
  serializeItem: Serialize,
  head: string,
  tail: string,
): AsyncGenerator<string> {
  let held: LeasedBatch<T> | null = first.done ? null : first.value;
  let written = 0;
  try {
    let chunk = head;
    while (held) {
      // chunks of about CHUNK_CHARS: the socket's backpressure lets other requests run between
      // large items, and small items still leave in few writes
      for (const item of held.items) {
        chunk += (written++ === 0 ? '' : ',') + serializeItem(item);
        if (chunk.length >= CHUNK_CHARS) {
          yield chunk;
          chunk = '';
        }
      }
      // the batch's lease also covers its text on its way out: it goes back once the response has
      // handed what it buffered to the socket, so a slow client holds budget, not unbudgeted memory
      await drained(response);
      held.lease.release();
      held = null;
      const next = await batches.next();
      held = next.done ? null : next.value;
    }
    yield chunk + tail;
  } finally {
    // a client that went away, or a failed read: give back what is held and stop reading
    held?.lease.release();
    await batches.return(undefined);
  }
}
