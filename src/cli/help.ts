import { type CommandDef, type CommandName, commandDef } from './registry.ts';

const USAGE = 'Usage: npm run -s shelf -- <group> <command> [flags]   (or: node src/cli/main.mjs <group> <command> [flags])';
const OUTPUT =
  'Prints one JSON object on stdout and exits 0; on failure {"error":{"code","message"}} and exit 1, or 2 for a usage error.\n' +
  'Help: --help after a group (`asset --help`) or a command (`team create --help`). --version alone prints {"version"}.';

/** A flag as a synopsis shows it: `--team ID`, `[--role ROLE]`, `[--cover]`, `--file PATH...`. */
function flagSynopsis(name: string, def: CommandDef['flags'][string]): string {
  const text = `--${name}${def.value === undefined ? '' : ` ${def.value}`}${def.multiple ? '...' : ''}`;
  return def.required ? text : `[${text}]`;
}

export function synopsis(name: CommandName): string {
  const def: CommandDef = commandDef(name)!;
  return [name, ...Object.entries(def.flags).map(([flag, spec]) => flagSynopsis(flag, spec))].join(' ');
}

/** One line per command: its synopsis (every flag) and what it does. */
export function commandsHelp(names: CommandName[], title: string): string {
  const lines = names.map((name) => `  ${synopsis(name)}  -- ${commandDef(name)!.help}`);
  return `${USAGE}\n${OUTPUT}\n\n${title}\n${lines.join('\n')}\n`;
}

/** A command's page: its synopsis, then one line per flag. */
export function commandHelp(name: CommandName): string {
  const def: CommandDef = commandDef(name)!;
  const entries = Object.entries(def.flags);
  const width = Math.max(0, ...entries.map(([flag, spec]) => flagSynopsis(flag, { ...spec, required: true }).length));
  const flags = entries.map(
    ([flag, spec]) => `  ${flagSynopsis(flag, { ...spec, required: true }).padEnd(width)}  ${spec.required ? '' : '(optional) '}${spec.help}`,
  );
  return `Usage: npm run -s shelf -- ${synopsis(name)}\n${def.help}\n\nFlags:\n${flags.join('\n')}\n`;
}
