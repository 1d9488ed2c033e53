import { parseSync } from 'vite';

/**
 * How a SQL statement begins, after leading blanks, comments and opening parentheses: a query, a
 * write, or a common table expression (`with x as (`, `with recursive x(a, b) as materialized (`).
 * Plain prose does not match: "Select a file" has no `from`, "update the list" no `set`. A
 * template's `${...}` reads as `?`, so a statement whose table or head is interpolated counts too.
 */
const STATEMENT_START = new RegExp(
  [
    // a select list holds no colon followed by a blank (casts are `::type`); prose before "from" does
    String.raw`select\s+(?:(?!:\s)[\s\S])*?\bfrom\s+["\w(?]`,
    String.raw`select\s+(?:[\d*?]|[a-z_][\w.]*\()`,
    String.raw`insert\s+into\s+["\w?]`,
    String.raw`update\s+["\w?][\w."?]*(?:\s+(?:as\s+)?\w+)?\s+set\s`,
    String.raw`delete\s+from\s+["\w?]`,
    String.raw`with\s+(?:recursive\s+)?["\w][\w"]*\s*(?:\([^)]*\)\s*)?as\s+(?:not\s+)?(?:materialized\s+)?\(`,
    // the rest of a statement whose head is interpolated: `${COLUMNS} where t.id = ?`
    String.raw`\?\s+(?:where|from|join|order\s+by|group\s+by|returning|on\s+conflict|union|limit)\b`,
  ]
    .map((alternative) => `(?:${alternative})`)
    .join('|'),
  'i',
);

/** Blanks, SQL comments and opening parentheses a statement may start with. */
const LEADING_NOISE = /^(?:\s+|--[^\n]*\n?|\/\*[\s\S]*?\*\/|\()*/;

/** True when the text of one string or template literal is (the start of) a SQL statement. */
export function isSqlStatement(text: string): boolean {
  const rest = text.replace(LEADING_NOISE, '');
  const match = STATEMENT_START.exec(rest);
  return match !== null && match.index === 0;
}

export interface SqlLiteral {
  /** 1-based line of the literal's start. */
  line: number;
  /** The literal's text; each `${...}` of a template stands as `?`. */
  text: string;
}

/**
 * Every string and template literal of a TypeScript source that holds a SQL statement. The source
 * is parsed (Oxc, through Vite: vitest's own parser, a devDependency), so comments, regular
 * expressions and identifiers never count, and a template's interpolations do not hide the SQL
 * around them.
 */
export function sqlLiteralsIn(filename: string, source: string): SqlLiteral[] {
  return literalsIn(filename, source).filter((literal) => isSqlStatement(literal.text));
}

export interface SourceLiteral extends SqlLiteral {
  /** A template literal (which composes text from values) rather than a plain string. */
  template: boolean;
}

/** Every string and template literal of a TypeScript source, parsed as sqlLiteralsIn does. */
export function literalsIn(filename: string, source: string): SourceLiteral[] {
  const parsed = parseSync(filename, source, { lang: 'ts' });
  if (parsed.errors.length > 0) throw new Error(`${filename} does not parse: ${parsed.errors[0]!.message}`);
  const found: SourceLiteral[] = [];
  const lineStarts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as { type?: string; value?: unknown; start?: number; quasis?: { value: { cooked: string | null; raw: string } }[] };
    if (n.type === 'Literal' && typeof n.value === 'string') found.push({ line: lineOf(n.start ?? 0), text: n.value, template: false });
    if (n.type === 'TemplateLiteral' && n.quasis)
      found.push({ line: lineOf(n.start ?? 0), text: n.quasis.map((q) => q.value.cooked ?? q.value.raw).join('?'), template: true });
    for (const [key, child] of Object.entries(node)) if (key !== 'parent') visit(child);
  };
  visit(parsed.program);
  return found;
}
