import { describe, expect, it } from 'vitest';
import type { SharePageField, SharePageMedia } from '../../src/core/catalogue/products/product-share-page.service.ts';
import type { FieldType } from '../../src/core/catalogue/templates/template.schemas.ts';
import { fieldValue } from '../../src/rest/share-page/field-values.ts';
import { formatMoney, formatQuantity } from '../../src/rest/share-page/format.ts';
import { richDelta, richHtml } from '../../src/rest/share-page/rich-text.ts';

/*
 * The share page's formatter on its own (pure functions): the hostile and odd inputs a browser
 * test would be slow to walk through. How each type reads on a real page is in
 * share-page.browser.test.ts.
 */

const noMedia = new Map<number, SharePageMedia>();
const field = (type: FieldType, value: unknown, config: Record<string, unknown> = {}): SharePageField => ({ id: 'f', label: 'Field', type, config, value });
const shown = (type: FieldType, value: unknown, config: Record<string, unknown> = {}) => fieldValue(field(type, value, config), noMedia)?.value ?? null;

describe('rich text in html mode', () => {
  it('keeps only attribute-free elements of its small set and http(s) links, dropping scripts, frames, images and event handlers', () => {
    const out = richHtml(
      [
        '<p class="x" style="color:red" onmouseover="alert(1)">Hi <b>there</b></p>',
        '<a href="JaVaScRiPt:alert(1)">js</a> <a href="/relative">rel</a> <a href="https://example.com/a?b=1&c=&quot;2&quot;">ok</a>',
        '<img src="https://example.com/x.png"><script>alert(1)</script><style>p{}</style><iframe src="https://example.com"></iframe>',
        '<svg><a href="https://example.com">in svg</a><script>alert(1)</script></svg>',
        '&lt;script&gt;alert(1)&lt;/script&gt;',
      ].join(''),
    ).value;
    expect(out).toBe(
      '<p>Hi <strong>there</strong></p>js rel <a href="https://example.com/a?b=1&amp;c=%222%22" rel="noopener noreferrer nofollow">ok</a>&lt;script&gt;alert(1)&lt;/script&gt;',
    );
  });

  it('shows a subtree nested past its depth bound as text, without failing on thousands of levels', () => {
    const deep = `${'<div>'.repeat(20_000)}<em>bottom</em>${'</div>'.repeat(20_000)}`;
    const out = richHtml(deep).value;
    expect(out).toContain('bottom');
    expect(out).not.toContain('<em>');
    expect(out.match(/<div>/g)?.length).toBe(48);
  });
});

describe('rich text in delta mode', () => {
  it('writes lines by their newline attributes, one pre for consecutive code lines, and skips embeds and malformed ops', () => {
    const out = richDelta({
      ops: [
        { insert: 'Steps' },
        { insert: '\n', attributes: { header: 3 } },
        { insert: 'Unpack' },
        { insert: '\n', attributes: { list: 'ordered' } },
        { insert: 'Plug in' },
        { insert: '\n', attributes: { list: 'ordered' } },
        { insert: 'make' },
        { insert: '\n', attributes: { 'code-block': true } },
        { insert: 'make install' },
        { insert: '\n', attributes: { 'code-block': true } },
        null,
        'text',
        { insert: { image: 'https://example.com/x.png' } },
        { retain: 3 },
        { insert: 'H' },
        { insert: '2', attributes: { script: 'sub' } },
        { insert: 'O <b>', attributes: { color: '#f00', link: 'javascript:alert(1)' } },
        { insert: '\n' },
      ],
    }).value;
    expect(out).toBe('<h4>Steps</h4><ol><li>Unpack</li><li>Plug in</li></ol><pre>make\nmake install</pre><p>H<sub>2</sub>O &lt;b&gt;</p>');
  });
});

describe('template values as the share page writes them', () => {
  it('shows a choice whose value no option has as the stored value, and leaves out a multi-choice with nothing chosen', () => {
    const options = [{ value: 'red', label: 'Red', sortOrder: 0 }];
    expect(shown('select', 'teal', { options })).toBe('teal');
    expect(shown('radio', 'red', { options })).toBe('Red');
    expect(shown('checkbox', [], { options })).toBeNull();
  });

  it('shows a value whose shape does not fit its type as escaped text rather than failing', () => {
    expect(shown('text', 42)).toBe('42');
    expect(shown('date', '14/03/2026')).toBe('14/03/2026');
    expect(shown('color', 'red"><script>')).toBe('red&quot;&gt;&lt;script&gt;');
    expect(shown('currency', 12, {})).toBe('12');
    expect(shown('richtext', { html: '<p>x</p>' })).toBe('{&quot;html&quot;:&quot;&lt;p&gt;x&lt;/p&gt;&quot;}');
  });

  it("links only http(s) web addresses, and builds mail and call links from the value's parts, percent-encoded", () => {
    expect(shown('url', 'ftp://example.com/file')).toBe('ftp://example.com/file');
    expect(shown('email', 'a?cc=b@example.com')).toBe('<a href="mailto:a%3Fcc%3Db@example.com">a?cc=b@example.com</a>');
    expect(shown('phone', '(030) 123 45')).toBe('<a href="tel:03012345">(030) 123 45</a>');
  });

  it("writes amounts with the template's symbol and decimals for any code, and units Intl knows with its spacing", () => {
    expect(formatMoney(-5, { code: 'not a code', symbol: 'pts', decimals: 1 })).toBe('-pts\u00a05.0');
    expect(formatMoney(0.5, { code: 'JPY', symbol: '¥', decimals: 2 })).toBe('¥0.50');
    expect(formatQuantity(21, '°C')).toBe('21°C');
    expect(formatQuantity(0.000001, 'F')).toBe('0.000001\u00a0F');
    expect(formatQuantity(3, '  ')).toBe('3');
  });
});

describe('large rich text on the public page', () => {
  it('renders a large value once per content and answers repeats from the memo, with the same output', async () => {
    const { richHtmlRemembered, richDeltaRemembered, richTextMemoStats } = await import('../../src/rest/share-page/rich-text-memo.ts');
    const big = `<p>${'Lorem <b>ipsum</b> '.repeat(2000)}${Math.random()}</p>`;
    const before = richTextMemoStats().renders;
    const first = richHtmlRemembered(big).value;
    expect(first).toBe(richHtml(big).value);
    for (let i = 0; i < 5; i++) expect(richHtmlRemembered(big).value).toBe(first);
    expect(richTextMemoStats().renders).toBe(before + 1);
    // the same text in delta mode is another rendering, kept apart
    const delta = { ops: [{ insert: big }] };
    expect(richDeltaRemembered(delta).value).toBe(richDelta(delta).value);
    expect(richTextMemoStats().renders).toBe(before + 2);
  });

  it('does not keep small values (they render faster than they are looked up)', async () => {
    const { richHtmlRemembered, richTextMemoStats } = await import('../../src/rest/share-page/rich-text-memo.ts');
    const entries = richTextMemoStats().entries;
    richHtmlRemembered('<p>small</p>');
    expect(richTextMemoStats().entries).toBe(entries);
  });
});
