import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md "Services and their names": a `<Thing>Service` class lives alone in
// `<thing>.service.ts`, and a `*.service.ts` file holds exactly that service.
const SRC = join(import.meta.dirname, '../../src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

function serviceClassesIn(source: string): string[] {
  return [...source.matchAll(/^export (?:abstract )?class ([A-Za-z0-9]+Service)\b/gm)].map((match) => match[1] as string);
}

describe('service names', () => {
  const files = tsFiles(SRC);

  it('a class named *Service lives in the *.service.ts file named after it', () => {
    const misplaced = files.flatMap((file) =>
      serviceClassesIn(readFileSync(file, 'utf8'))
        .filter((name) => !file.endsWith(`/${kebab(name.replace(/Service$/, ''))}.service.ts`))
        .map((name) => `${name} in ${relative(SRC, file)}`),
    );
    expect(misplaced).toEqual([]);
  });

  it('a *.service.ts file holds exactly one service', () => {
    const services = files.filter((file) => file.endsWith('.service.ts'));
    expect(services.length).toBeGreaterThan(20);
    const wrong = services
      .map((file) => ({ file: relative(SRC, file), classes: serviceClassesIn(readFileSync(file, 'utf8')) }))
      .filter(({ classes }) => classes.length !== 1);
    expect(wrong).toEqual([]);
  });

  it('recognizes a misplaced service, so the checks above can fail', () => {
    expect(serviceClassesIn('export class FolderEditService {}')).toEqual(['FolderEditService']);
    expect(kebab('LibraryImport')).toBe('library-import');
  });
});
