import { invalidFields } from '../core/platform/errors.ts';
import { COMMAND_NAMES, type CommandDef, type CommandName, commandDef } from './registry.ts';

/** A mistake in the command line itself (docs/cli.md: exit 2); `flag` names the flag at fault. */
export class UsageError extends Error {
  /** The flag at fault and what is wrong with it, for `details` (`{"field":"colour","message":"unknown flag"}`). */
  readonly issue: { field: string; message: string } | undefined;

  constructor(message: string, issue?: { field: string; message: string }) {
    super(message);
    this.issue = issue;
  }
}

export type ParsedFlags = Record<string, string | boolean | string[] | undefined>;

/** The command named by the first words (three words first: `asset bin list`, then two: `team create`), or null. */
export function resolveCommand(words: string[]): CommandName | null {
  for (const length of [3, 2]) {
    const name = words.slice(0, length).join(' ');
    if (words.length >= length && commandDef(name)) return name as CommandName;
  }
  return null;
}

/** The leading words before the first flag: the command, or a group (`asset`, `asset bin`) when help is asked for. */
export function leadingWords(argv: string[]): string[] {
  const end = argv.findIndex((arg) => arg.startsWith('-'));
  return end === -1 ? argv : argv.slice(0, end);
}

/** The registered commands under a group prefix (`asset` → every `asset ...` command). */
export function commandsUnder(words: string[]): CommandName[] {
  const prefix = words.join(' ');
  return COMMAND_NAMES.filter((name) => name === prefix || name.startsWith(`${prefix} `));
}

/** A usage error for words that name no command, saying what the group offers when the first word is one. */
export function unknownCommand(words: string[]): UsageError {
  const said = words.join(' ');
  if (said === '') return new UsageError('no command given; run with --help for the list of commands');
  const group = commandsUnder(words.slice(0, 1));
  const hint = group.length > 0 ? `; "${words[0]}" commands: ${group.join(', ')}` : '; run with --help for the list of commands';
  return new UsageError(`unknown command "${said}"${hint}`);
}

function flagList(def: CommandDef): string {
  const names = Object.keys(def.flags).map((name) => `--${name}`);
  return names.length > 0 ? names.join(', ') : 'none';
}

/**
 * The flags after the command's words, checked against its definition: `--name value`,
 * `--name=value` (needed for a value that starts with `--`), and switches without a value.
 * Refused as usage errors, naming the flag: an unknown flag, a flag without its value, a value
 * given to a switch, a flag given twice (unless it may repeat), and a stray argument. A required
 * flag that is missing is validation_failed naming it, before any database work (as the core says
 * of a missing field); whether a value is valid is the core's to say.
 */
export function parseFlags(name: CommandName, args: string[]): ParsedFlags {
  const def: CommandDef = commandDef(name)!;
  const flags: ParsedFlags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--') || arg === '--') throw new UsageError(`unexpected argument "${arg}" for "${name}"; flags are written --name value`);
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const spec = Object.hasOwn(def.flags, flag) ? def.flags[flag] : undefined;
    if (!spec) throw new UsageError(`unknown flag --${flag} for "${name}"; its flags: ${flagList(def)}`, { field: flag, message: 'unknown flag' });
    let value: string | true;
    if (spec.value === undefined) {
      if (eq !== -1) throw new UsageError(`--${flag} takes no value`, { field: flag, message: 'takes no value' });
      value = true;
    } else if (eq !== -1) {
      value = arg.slice(eq + 1);
    } else {
      const next = args[i + 1];
      if (next === undefined || next.startsWith('--'))
        throw new UsageError(`--${flag} needs a value (${spec.value}); write --${flag}=VALUE for a value that starts with --`, {
          field: flag,
          message: 'needs a value',
        });
      value = next;
      i++;
    }
    const previous = flags[flag];
    if (spec.multiple) flags[flag] = [...((previous as string[] | undefined) ?? []), value as string];
    else if (previous !== undefined) throw new UsageError(`--${flag} is given more than once`, { field: flag, message: 'given more than once' });
    else flags[flag] = value;
  }
  const missing = Object.entries(def.flags).filter(([flag, spec]) => spec.required && flags[flag] === undefined);
  if (missing.length > 0) throw invalidFields(missing.map(([flag]) => ({ field: flag, message: 'is required' })));
  return flags;
}
