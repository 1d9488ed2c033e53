/**
 * Where SQL lives (docs/architecture.md "Where SQL lives"). A SQL statement is written in one of:
 *
 * - a queries module, `<table-group>.queries.ts` next to the service that uses it: named, typed
 *   statements (a function per statement taking the scope and its parameters and returning typed
 *   rows), with row mappers that check what they cast where a cast could lie (bigint and count
 *   as strings, arrays, nullable columns);
 * - the SQL toolkit, src/core/platform/sql.ts (queryRows, preparedSql, array literals);
 * - the database set-up and migrations, src/db/ and migrations/.
 *
 * Services call named statements and hold no SQL text. Files that still do are listed, with how
 * many statements each holds, in test/platform/sql-not-yet-moved.json; the list only shrinks:
 * a file that is not listed may not gain SQL, a listed file may not gain more, and a listed file
 * that lost some must have its count lowered (or its entry removed) so the list stays true.
 *
 * A statement is a string or template literal that starts like one (test/support/sql-statements.ts):
 * `select ... from`, `insert into`, `update ... set`, `delete from`, `with x as (`. Fragments
 * (column lists, `where` conditions) do not count, but belong in the queries module all the same.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSqlStatement, sqlLiteralsIn } from '../support/sql-statements.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const LIST_FILE = 'test/platform/sql-not-yet-moved.json';
const SCANNED = ['src', 'workers'];

/** Where SQL may be written, and why. */
function homeOf(file: string): string | null {
  if (file.endsWith('.queries.ts')) return 'a queries module';
  if (file === 'src/core/platform/sql.ts') return 'the SQL toolkit';
  if (file.startsWith('src/db/') || file.startsWith('migrations/')) return 'the database set-up and migrations';
  return null;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/** Every scanned file outside SQL's homes that holds statements, with the lines they start on. */
function strayStatements(): Map<string, number[]> {
  const stray = new Map<string, number[]>();
  for (const file of SCANNED.flatMap(sourceFiles)) {
    if (homeOf(file) !== null) continue;
    const found = sqlLiteralsIn(file, readFileSync(join(ROOT, file), 'utf8'));
    if (found.length > 0)
      stray.set(
        file,
        found.map((literal) => literal.line),
      );
  }
  return stray;
}

const notYetMoved: Record<string, number> = JSON.parse(readFileSync(join(ROOT, LIST_FILE), 'utf8'));
const HOW_TO_MOVE =
  'Write it as a named, typed function in the <table-group>.queries.ts next to the service (docs/architecture.md "Where SQL lives") and call that.';

describe('the SQL statement scanner', () => {
  it('recognizes statements of every kind, in any case, after blanks, comments and parentheses', () => {
    for (const sql of [
      'select id from brands where team_id = ?',
      '\n  SELECT count(*)::int as n FROM webhook_deliveries d',
      'select 1',
      'select pg_advisory_xact_lock(?)',
      'insert into outbox_events (team_id) values (?)',
      'update webhook_endpoints set state = ? where id = ?',
      'update library_files f set name = ? from x',
      'delete from event_subscriptions s using webhook_endpoints e where e.id = s.endpoint_id',
      'with target as materialized (select id from webhook_deliveries) update webhook_deliveries d set status = ?',
      'with recursive tree(id, parent_id) as (select 1)',
      '-- the due heads\nselect id from webhook_deliveries',
      '(select id from library_folders) union (select id from x)',
      'delete from ? where template_id = ?',
      '? where t.id = ? and t.team_id = ?',
    ])
      expect(isSqlStatement(sql), sql).toBe(true);
  });

  it('leaves prose, fragments and identifiers alone', () => {
    for (const text of [
      'Select a file',
      'select only (required there): the allowed values, 1-100 distinct strings of 1-100 characters from the list',
      'update the list',
      'Update time from (epoch ms, inclusive).',
      'deleted_at is null and team_id = ?',
      'e.id, e.url, e.secret',
      'case when e.state = ? then 1 end',
      'with the same eventId',
      'selection',
      'the rows to insert into the table',
    ])
      expect(isSqlStatement(text), text).toBe(false);
  });

  it('reads string and template literals and nothing else: comments and regular expressions do not count', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a sample source file's template literal
    const interpolated = (sql: string) => sql.replaceAll('{}', '${"?"}');
    const source = [
      "// select id from brands where id = 'commented'",
      '/* delete from brands */',
      'const quote = /[\\\\"\']/g;',
      "const one = 'select id from brands where id = ?';",
      interpolated('const two = `update brands set name = {} where id = ?`;'),
      interpolated('const three = `{} where t.id = ?`;'),
      'const four = query("insert into brands (name) values (\'x\')");',
      'const prose = "Select a brand";',
    ].join('\n');
    expect(sqlLiteralsIn('sample.ts', source).map((literal) => literal.line)).toEqual([4, 5, 6, 7]);
  });
});

describe('where SQL lives', () => {
  const stray = strayStatements();

  it('no file outside the queries modules, the SQL toolkit and migrations holds SQL unless it is listed as still to move', () => {
    const unlisted = [...stray].filter(([file]) => !(file in notYetMoved));
    expect(
      unlisted.map(([file, lines]) => `${file} holds SQL statements at lines ${lines.join(', ')}. ${HOW_TO_MOVE}`),
      `files outside SQL's homes may not gain SQL (${LIST_FILE} lists only files still to move)`,
    ).toEqual([]);
  });

  it('no listed file holds more statements than listed', () => {
    const grown = Object.entries(notYetMoved).filter(([file, listed]) => (stray.get(file)?.length ?? 0) > listed);
    expect(
      grown.map(
        ([file, listed]) =>
          `${file} holds ${stray.get(file)!.length} SQL statements, ${listed} listed (lines ${stray.get(file)!.join(', ')}). New SQL goes in a queries module, not in a file still to move. ${HOW_TO_MOVE}`,
      ),
    ).toEqual([]);
  });

  it('the list is true: each listed file holds exactly as many statements as listed, so it only shrinks', () => {
    const shrunk = Object.entries(notYetMoved).filter(([file, listed]) => (stray.get(file)?.length ?? 0) < listed);
    expect(
      shrunk.map(([file, listed]) => {
        const now = stray.get(file)?.length ?? 0;
        const home = homeOf(file);
        if (now === 0) return `${file} ${home ? `is ${home}` : 'holds no SQL statement (any more)'}: remove its entry from ${LIST_FILE}`;
        return `${file} holds ${now} SQL statements, ${listed} listed: lower its count in ${LIST_FILE} to ${now}`;
      }),
    ).toEqual([]);
  });
});
