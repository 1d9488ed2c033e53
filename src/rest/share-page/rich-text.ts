import { type DefaultTreeAdapterTypes, parseFragment } from 'parse5';
import { escapeHtml, httpUrl, LINK_REL, SafeHtml } from './html.ts';

/*
 * Rich text (template `richtext` values) for the share page, in either of its stored modes: an
 * HTML string, or a Quill-style delta ({"ops": [...]}). Both become the same small, fixed set of
 * elements without attributes (paragraphs, line breaks, bold, italic, underline, strike-through,
 * sub/superscript, code, headings, quotes, lists) plus links to http(s) addresses. The output is
 * built only from those fixed tags and escaped text, so no stored markup, attribute, style,
 * script, image or frame reaches the page whatever the input was; content the page cannot show
 * (embedded images, media, forms) is left out rather than fetched from elsewhere.
 */

type Node = DefaultTreeAdapterTypes.ChildNode;
type Element = DefaultTreeAdapterTypes.Element;

const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';

/** HTML elements kept, each as the attribute-free element it becomes (headings step below the page's h1 and h2). */
const KEPT: Readonly<Record<string, string>> = {
  p: 'p',
  br: 'br',
  hr: 'hr',
  strong: 'strong',
  b: 'strong',
  em: 'em',
  i: 'em',
  u: 'u',
  ins: 'u',
  s: 's',
  strike: 's',
  del: 's',
  sub: 'sub',
  sup: 'sup',
  code: 'code',
  kbd: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
  ul: 'ul',
  ol: 'ol',
  li: 'li',
  h1: 'h3',
  h2: 'h3',
  h3: 'h4',
  h4: 'h4',
  h5: 'h4',
  h6: 'h4',
  // block containers keep their line breaks as plain divisions
  div: 'div',
  section: 'div',
  article: 'div',
  header: 'div',
  footer: 'div',
  aside: 'div',
  main: 'div',
  nav: 'div',
  figure: 'div',
  table: 'div',
  tr: 'div',
  dl: 'div',
  dt: 'div',
  dd: 'div',
  address: 'div',
  details: 'div',
  summary: 'div',
  figcaption: 'div',
};
const VOID = new Set(['br', 'hr']);

/** Elements left out with everything inside them: active content, embedded resources, form controls, document metadata. */
const DROPPED = new Set([
  'script',
  'style',
  'template',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'noscript',
  'noembed',
  'noframes',
  'svg',
  'math',
  'img',
  'picture',
  'video',
  'audio',
  'source',
  'track',
  'canvas',
  'map',
  'area',
  'input',
  'button',
  'select',
  'textarea',
  'option',
  'optgroup',
  'datalist',
  'head',
  'title',
  'meta',
  'link',
  'base',
  'param',
  'dialog',
]);

/** Past this nesting, a subtree is shown as its text (a bound on recursion for hostile input). */
const MAX_DEPTH = 48;

/** Stored HTML (html mode) as the page's safe subset. */
export function richHtml(source: string): SafeHtml {
  const fragment = parseFragment(source);
  return new SafeHtml(fragment.childNodes.map((node) => renderNode(node, 0)).join(''));
}

function renderNode(node: Node, depth: number): string {
  if (node.nodeName === '#text') return escapeHtml((node as DefaultTreeAdapterTypes.TextNode).value);
  if (!('tagName' in node)) return ''; // comments, doctypes
  const element = node as Element;
  const name = element.tagName;
  if (element.namespaceURI !== HTML_NAMESPACE || DROPPED.has(name)) return '';
  if (depth >= MAX_DEPTH) return escapeHtml(textOf(element));
  const inner = () => element.childNodes.map((child) => renderNode(child, depth + 1)).join('');
  if (name === 'a') {
    const href = httpUrl(element.attrs.find((a) => a.name === 'href')?.value);
    return href ? `<a href="${escapeHtml(href)}" rel="${LINK_REL}">${inner()}</a>` : inner();
  }
  const kept = KEPT[name];
  if (!kept) return name === 'td' || name === 'th' ? `${inner()} ` : inner();
  return VOID.has(kept) ? `<${kept}>` : `<${kept}>${inner()}</${kept}>`;
}

/** The text of a subtree, without recursion, leaving out what DROPPED leaves out. */
function textOf(root: Element): string {
  let text = '';
  const stack: Node[] = [...root.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeName === '#text') text += (node as DefaultTreeAdapterTypes.TextNode).value;
    else if ('tagName' in node && node.namespaceURI === HTML_NAMESPACE && !DROPPED.has(node.tagName)) {
      for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
    }
  }
  return text;
}

type Attributes = Record<string, unknown>;
interface Run {
  text: string;
  attributes: Attributes;
}
interface Line {
  runs: Run[];
  attributes: Attributes;
}

/**
 * A delta document (delta mode) as the page's safe subset: text inserts with their inline
 * attributes (bold, italic, underline, strike, code, script, link), lines shaped by the attributes
 * of their newline (header, list, blockquote, code-block). Embeds (images, video, formulas) and
 * attributes the page does not show (colours, fonts, sizes) are left out.
 */
export function richDelta(document: { ops: readonly unknown[] }): SafeHtml {
  const lines: Line[] = [];
  let line: Line = { runs: [], attributes: {} };
  for (const op of document.ops) {
    if (op === null || typeof op !== 'object') continue;
    const { insert, attributes } = op as { insert?: unknown; attributes?: unknown };
    if (typeof insert !== 'string') continue;
    const attrs = attributes !== null && typeof attributes === 'object' ? (attributes as Attributes) : {};
    insert.split('\n').forEach((piece, i) => {
      if (i > 0) {
        // the newline carries the attributes of the line it ends
        lines.push({ runs: line.runs, attributes: attrs });
        line = { runs: [], attributes: {} };
      }
      if (piece !== '') line.runs.push({ text: piece, attributes: attrs });
    });
  }
  if (line.runs.length > 0) lines.push(line);
  return new SafeHtml(renderLines(lines));
}

function renderLines(lines: readonly Line[]): string {
  let out = '';
  let open: 'ul' | 'ol' | 'pre' | null = null;
  const close = () => {
    if (open) out += `</${open}>`;
    open = null;
  };
  for (const line of lines) {
    const { list, header, blockquote } = line.attributes;
    const container =
      list === 'ordered' ? 'ol' : list === 'bullet' || list === 'checked' || list === 'unchecked' ? 'ul' : line.attributes['code-block'] ? 'pre' : null;
    if (container !== open) {
      close();
      if (container) out += `<${container}>`;
      open = container;
    }
    const text = line.runs.map(renderRun).join('');
    if (container === 'pre') out += `${out.endsWith('<pre>') ? '' : '\n'}${text}`;
    else if (container) out += `<li>${text}</li>`;
    else if (text.trim() === '')
      continue; // an empty line is spacing in an editor, nothing to read
    else if (header === 1 || header === 2) out += `<h3>${text}</h3>`;
    else if (typeof header === 'number') out += `<h4>${text}</h4>`;
    else if (blockquote) out += `<blockquote>${text}</blockquote>`;
    else out += `<p>${text}</p>`;
  }
  close();
  return out;
}

function renderRun(run: Run): string {
  const a = run.attributes;
  let out = escapeHtml(run.text);
  if (a.code) out = `<code>${out}</code>`;
  if (a.script === 'sub') out = `<sub>${out}</sub>`;
  if (a.script === 'super') out = `<sup>${out}</sup>`;
  if (a.strike) out = `<s>${out}</s>`;
  if (a.underline) out = `<u>${out}</u>`;
  if (a.italic) out = `<em>${out}</em>`;
  if (a.bold) out = `<strong>${out}</strong>`;
  const href = httpUrl(a.link);
  if (href) out = `<a href="${escapeHtml(href)}" rel="${LINK_REL}">${out}</a>`;
  return out;
}
