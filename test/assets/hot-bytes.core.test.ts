import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HotBytes } from '../../src/core/assets/delivery/hot-bytes.ts';

const opened = (text: string) => ({ stream: Readable.from([Buffer.from(text)]), size: Buffer.byteLength(text) });
async function read(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe('HotBytes (previews and processed images kept in memory)', () => {
  it('passes a small file through and serves the same bytes again from memory, as many times as asked', async () => {
    const hot = new HotBytes({ maxBytes: 100, maxItemBytes: 50 });
    expect(hot.open('a')).toBeNull();
    const first = await hot.keep('a', opened('hello'));
    expect([await read(first.stream), first.size]).toEqual(['hello', 5]);
    for (let i = 0; i < 2; i++) {
      const again = hot.open('a')!;
      expect([await read(again.stream), again.size]).toEqual(['hello', 5]);
    }
  });

  it('does not keep a file above the item limit, and passes its stream through untouched', async () => {
    const hot = new HotBytes({ maxBytes: 100, maxItemBytes: 4 });
    const big = opened('too big');
    expect(await hot.keep('big', big)).toBe(big);
    expect(hot.open('big')).toBeNull();
    expect(hot.keptBytes).toBe(0);
  });

  it('stays within its byte budget, dropping the least recently used first', async () => {
    const hot = new HotBytes({ maxBytes: 10, maxItemBytes: 10 });
    await hot.keep('a', opened('aaaa'));
    await hot.keep('b', opened('bbbb'));
    hot.open('a'); // a is now more recent than b
    await hot.keep('c', opened('cccc'));
    expect(hot.keptBytes).toBe(8);
    expect(hot.open('b')).toBeNull();
    expect(await read(hot.open('a')!.stream)).toBe('aaaa');
    expect(await read(hot.open('c')!.stream)).toBe('cccc');
  });
});
