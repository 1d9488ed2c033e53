import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, COMMANDS, type CommandDef, MODULES, type ModuleName } from '../../src/cli/registry.ts';
import { runCli, spawnCli } from '../support/cli.ts';
import { SPAWNING_TEST_TIMEOUT_MS } from '../support/wait.ts';

/*
 * The operator CLI's command registry: help is generated from it, the parser checks flags against
 * it, every command module runs exactly its commands, and docs/cli.md's table names only commands
 * and flags it holds. Help and usage errors run with a DATABASE_URL where nothing listens: they
 * must answer without touching a database.
 */

const NO_DATABASE = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' };
const cli = (...args: string[]) => runCli(args, NO_DATABASE);
const defOf = (name: string): CommandDef => (COMMANDS as Record<string, CommandDef>)[name]!;

/** The commands of docs/cli.md's table with the flags each row shows for them. */
async function documentedCommands(): Promise<Array<{ name: string; flags: string[]; row: string }>> {
  const page = await readFile(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  const section = page.split('\n## Commands')[1]!.split('\n## ')[0]!;
  const found: Array<{ name: string; flags: string[]; row: string }> = [];
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const firstCell = row.split(/(?<!\\)\|/)[1]!;
    for (const [, usage] of firstCell.matchAll(/`([^`]+)`/g)) {
      const words = usage!.split(' ');
      const end = words.findIndex((word) => /^[-[(.]/.test(word));
      found.push({ name: words.slice(0, end === -1 ? undefined : end).join(' '), flags: [...usage!.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]!), row });
    }
  }
  return found;
}

describe('operator CLI help, generated from the registry', () => {
  it('--help lists every registered command on one line with each of its flags, exits 0 and touches no database', async () => {
    const res = await cli('--help');
    expect(res.code).toBe(0);
    const lines = res.stdout.split('\n');
    for (const name of COMMAND_NAMES) {
      const own = lines.filter((l) => l.startsWith(`  ${name} `));
      expect(own, name).toHaveLength(1);
      for (const flag of Object.keys(defOf(name).flags)) expect(own[0], `${name} --${flag}`).toMatch(new RegExp(`[ [\\[]--${flag}(?=[ \\].]|$)`));
      expect(own[0]).toContain(defOf(name).help);
    }
  });

  it('<group> --help lists exactly the commands of that group', async () => {
    const res = await cli('webhook', '--help');
    expect(res.code).toBe(0);
    const listed = res.stdout
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim().split(' ').slice(0, 2).join(' '));
    expect(listed).toEqual(COMMAND_NAMES.filter((name) => name.startsWith('webhook ')));
    const bin = await cli('asset', 'bin', '--help');
    expect(
      bin.stdout
        .split('\n')
        .filter((l) => l.startsWith('  '))
        .map((l) => l.trim().split(' ').slice(0, 3).join(' ')),
    ).toEqual(['asset bin list', 'asset bin restore', 'asset bin purge', 'asset bin empty']);
  });

  it('<command> --help shows its synopsis and one line per flag, optional ones marked', async () => {
    const res = await cli('key', 'create', '--help');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Usage: npm run -s shelf -- key create --team ID [--role ROLE] [--expires-at RFC3339]');
    const flagLines = res.stdout.split('\n').filter((l) => l.startsWith('  --'));
    expect(flagLines.map((l) => l.trim().split(' ')[0])).toEqual(['--team', '--role', '--expires-at']);
    expect(flagLines[1]).toContain('(optional)');
    expect(flagLines[0]).not.toContain('(optional)');
  });

  it(
    '--help after other flags still shows the command page; --help for an unknown group is a usage error (exit 2 of a process of its own)',
    async () => {
      expect((await cli('team', 'create', '--name', 'x', '--help')).stdout).toContain('Usage: npm run -s shelf -- team create --name NAME');
      const unknown = await spawnCli(['nothing', '--help'], NO_DATABASE);
      expect(unknown.code).toBe(2);
      expect(unknown.json.error.code).toBe('usage');
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );
});

describe('operator CLI usage errors: exit 2, {"error":{"code":"usage"}} on stdout naming the flag, no database touched', () => {
  const cases: Array<[string, string[], string | null, RegExp]> = [
    ['an unknown flag', ['team', 'create', '--name', 'x', '--colour', 'red'], 'colour', /unknown flag --colour for "team create"; its flags: --name/],
    ['a flag without its value', ['member', 'add', '--team', '1', '--name'], 'name', /--name needs a value/],
    ['a flag followed by another flag instead of its value', ['member', 'add', '--team', '--name', 'x'], 'team', /--team needs a value/],
    [
      'a value given to a switch',
      ['asset', 'version', 'add', '--user', '1', '--file', '2', '--version', '3', '--cover=yes'],
      'cover',
      /--cover takes no value/,
    ],
    ['a flag given twice', ['team', 'create', '--name', 'a', '--name', 'b'], 'name', /--name is given more than once/],
    ['a stray argument', ['team', 'create', 'Acme'], null, /unexpected argument "Acme"/],
    ['an unknown command of a known group', ['team', 'delete'], null, /unknown command "team delete"; "team" commands: team create, team enable-subscriptions/],
    ['an unknown command', ['frobnicate'], null, /unknown command "frobnicate"/],
    ['no command', [], null, /no command given/],
  ];
  for (const [what, args, flag, message] of cases) {
    it(`refuses ${what}`, async () => {
      const res = await cli(...args);
      expect(res.code).toBe(2);
      expect(res.stdout.trim().split('\n')).toHaveLength(1);
      expect(res.json.error.code).toBe('usage');
      expect(res.json.error.message).toMatch(message);
      if (flag) expect(res.json.error.details).toEqual([{ field: flag, message: expect.any(String) }]);
      else expect(res.json.error.details).toBeUndefined();
    });
  }

  it('answers missing required flags with validation_failed naming each of them, exit 1, before any database work', async () => {
    const res = await cli('key', 'set-role');
    expect(res.code).toBe(1);
    expect(res.json.error).toEqual({
      code: 'validation_failed',
      message: 'The request is invalid',
      details: [
        { field: 'key-id', message: 'is required' },
        { field: 'role', message: 'is required' },
      ],
    });
  });

  it('takes --flag=value, also for a value that starts with --, and repeats a repeatable flag (reaching the database only then)', async () => {
    // the parse succeeds, so the run goes on to the database, which is not there: service_unavailable (as every
    // area answers an unreachable database), not a usage error
    const res = await cli('approval', 'resubmit', '--task', 't', '--user', '1', '--file', 'a', '--file=--b', '--comment=--c');
    expect(res.code).toBe(1);
    expect(res.json.error.code).toBe('service_unavailable');
  });
});

describe('operator CLI registry', () => {
  it('every command module runs exactly the commands registered for it', async () => {
    for (const [module, load] of Object.entries(MODULES) as Array<[ModuleName, (typeof MODULES)[ModuleName]]>) {
      const { handlers } = await load();
      expect(Object.keys(handlers).sort(), module).toEqual(COMMAND_NAMES.filter((name) => defOf(name).module === module).sort());
    }
  });

  it("each command of docs/cli.md's table is registered, with the flags the row shows", async () => {
    const rows = await documentedCommands();
    expect(rows.length).toBeGreaterThan(40);
    for (const { name, flags, row } of rows) {
      expect(COMMAND_NAMES, row).toContain(name);
      for (const flag of flags) expect(Object.keys(defOf(name).flags), `${name} --${flag}`).toContain(flag);
    }
  });

  it("every registered command has a row in docs/cli.md's table", async () => {
    const documented = new Set((await documentedCommands()).map((r) => r.name));
    expect(COMMAND_NAMES.filter((name) => !documented.has(name))).toEqual([]);
  });
});
