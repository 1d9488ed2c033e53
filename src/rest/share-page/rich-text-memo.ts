import { createHash } from 'node:crypto';
import { SafeHtml } from './html.ts';
import { richDelta, richHtml } from './rich-text.ts';

/*
 * Rendering stored rich text costs about 0.3-0.5 s of CPU per MiB (parse5 builds the whole tree),
 * and a share page is public: anyone holding a link could make the process spend that on every
 * view. Renderings of large values are kept by the hash of their source, so a repeated view costs
 * a hash. The key is the content itself, so the memo can never be stale or cross teams in a way
 * that matters (the same source always renders the same way), and it is bounded by size.
 */

/** Sources below this size render faster than they hash and look up. */
const MEMO_FROM_CHARS = 4096;
/** Total characters of source plus output kept, across entries. */
const MEMO_BUDGET_CHARS = 32 * 1024 * 1024;

const memo = new Map<string, { html: string; chars: number }>();
let memoChars = 0;
let renders = 0;

/** How many large values were rendered (not answered from the memo), and how many are kept. */
export function richTextMemoStats(): { renders: number; entries: number; chars: number } {
  return { renders, entries: memo.size, chars: memoChars };
}

function remembered(source: string, render: () => SafeHtml): SafeHtml {
  if (source.length < MEMO_FROM_CHARS) return render();
  const key = createHash('sha256').update(source).digest('base64');
  const hit = memo.get(key);
  if (hit) {
    // most recently used last: Map keeps insertion order
    memo.delete(key);
    memo.set(key, hit);
    return new SafeHtml(hit.html);
  }
  const rendered = render();
  renders++;
  const chars = source.length + rendered.value.length;
  if (chars <= MEMO_BUDGET_CHARS) {
    memo.set(key, { html: rendered.value, chars });
    memoChars += chars;
    for (const [oldest, entry] of memo) {
      if (memoChars <= MEMO_BUDGET_CHARS) break;
      memo.delete(oldest);
      memoChars -= entry.chars;
    }
  }
  return rendered;
}

/** Stored HTML (html mode) as the page's safe subset, remembered when large. */
export function richHtmlRemembered(source: string): SafeHtml {
  return remembered(`html:${source}`, () => richHtml(source));
}

/** A delta document (delta mode) as the page's safe subset, remembered when large. */
export function richDeltaRemembered(document: { ops: readonly unknown[] }): SafeHtml {
  return remembered(`delta:${JSON.stringify(document)}`, () => richDelta(document));
}
