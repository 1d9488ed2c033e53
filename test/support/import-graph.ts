import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseSync } from 'vite';

const ROOT = join(import.meta.dirname, '..', '..');

/** One import of a source file: the file it names (relative to the repository) and its line. */
export interface ImportEdge {
  to: string;
  line: number;
}

/** Every `.ts` file under `dir` (relative to the repository), sorted. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * The relative imports of a source: `import` (type-only too: a type import is still an arrow
 * between modules), `export ... from` and `import()`. Parsed (Oxc, through Vite) rather than
 * matched, so comments and strings never count.
 */
export function importsOf(file: string, source = readFileSync(join(ROOT, file), 'utf8')): ImportEdge[] {
  const parsed = parseSync(file, source, { lang: 'ts' });
  if (parsed.errors.length > 0) throw new Error(`${file} does not parse: ${parsed.errors[0]!.message}`);
  const lineOf = (offset: number) => source.slice(0, offset).split('\n').length;
  const requests: { value: string; start: number }[] = [
    ...parsed.module.staticImports.map((entry) => entry.moduleRequest),
    ...parsed.module.staticExports.flatMap((entry) => entry.entries.flatMap((e) => (e.moduleRequest ? [e.moduleRequest] : []))),
    ...parsed.module.dynamicImports.flatMap((entry) => {
      const text = source.slice(entry.moduleRequest.start, entry.moduleRequest.end);
      const literal = /^(['"])(.*)\1$/.exec(text);
      return literal ? [{ value: literal[2]!, start: entry.moduleRequest.start }] : [];
    }),
  ];
  return requests
    .filter((request) => request.value.startsWith('.'))
    .map((request) => ({ to: relative(ROOT, resolve(ROOT, dirname(file), request.value)), line: lineOf(request.start) }));
}

/** The import graph of every `.ts` file under `dirs`: file -> the files it imports. */
export function importGraph(dirs: readonly string[]): Map<string, ImportEdge[]> {
  const graph = new Map<string, ImportEdge[]>();
  for (const file of dirs.flatMap(sourceFiles)) graph.set(file, importsOf(file));
  return graph;
}

/** The path of imports from `from` to `to` (both included), or null when `to` cannot be reached. */
export function importPath(graph: ReadonlyMap<string, readonly ImportEdge[]>, from: string, to: string): string[] | null {
  const previous = new Map<string, string | null>([[from, null]]);
  const queue = [from];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (file === to) {
      const path = [file];
      for (let step = previous.get(file); step != null; step = previous.get(step)) path.unshift(step);
      return path;
    }
    for (const edge of graph.get(file) ?? []) {
      if (previous.has(edge.to)) continue;
      previous.set(edge.to, file);
      queue.push(edge.to);
    }
  }
  return null;
}

/** The import circles among `files`: each a strongly connected set of two or more files (Tarjan), files sorted. */
export function importCircles(graph: ReadonlyMap<string, readonly ImportEdge[]>, files: readonly string[]): string[][] {
  const inScope = new Set(files);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const { to } of graph.get(file) ?? []) {
      if (!inScope.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      circle.push(member);
    } while (member !== file);
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return circles;
}
