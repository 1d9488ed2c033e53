import type { Cli, Flags } from './command.ts';

/**
 * Every operator command: its name, one line of help, its flags and the module that runs it.
 * The parser, `--help` and the docs/cli.md drift test all read this table, and it imports nothing
 * heavy: a run loads only the module of the command it runs (`MODULES`), so a usage error or a
 * help page never touches the domain core or the database.
 */

/** A flag: `value` is the placeholder help shows (`--team ID`); without one the flag is a switch (`--cover`). */
export interface FlagDef {
  readonly value?: string;
  /** Shown without brackets in help; a run without it is validation_failed naming the flag, before the database is touched. */
  readonly required?: boolean;
  /** May be given more than once; the handler gets the values in order. */
  readonly multiple?: boolean;
  readonly help: string;
}

export interface CommandDef {
  readonly module: ModuleName;
  readonly help: string;
  readonly flags: Readonly<Record<string, FlagDef>>;
}

export type ModuleName =
  | 'access'
  | 'asset'
  | 'asset-edit'
  | 'asset-analysis'
  | 'asset-bin'
  | 'asset-metadata'
  | 'asset-pending'
  | 'asset-version'
  | 'category-icon'
  | 'share'
  | 'webhook'
  | 'approval'
  | 'storage';

export type Handler = (cli: Cli, flags: Flags) => Promise<object>;

const TEAM = { value: 'ID', required: true, help: 'the team (its id)' } as const;
const USER = { value: 'USERID', required: true, help: "act as this member; the member's team scopes the command" } as const;
const FILE_ID = { value: 'ID', required: true, help: 'the file (its file-path ID)' } as const;
const ENDPOINT = { value: 'ID', required: true, help: 'the webhook endpoint' } as const;
const IDS = { value: '1,2', required: true, help: 'comma-separated ids' } as const;
const KEY_ID = { value: 'ID', required: true, help: 'the key' } as const;
const TASK = { value: 'ID', required: true, help: 'the approval task' } as const;
const COMMENT = { value: 'C', help: 'a comment' } as const;
/** The ordinary paging flags of a list command. */
const PAGING = { page: { value: 'N', help: 'page number from 1' }, 'page-size': { value: 'N', help: 'items per page' } } as const;

export const COMMANDS = {
  'team create': { module: 'access', help: 'Creates a team. Prints {"teamId"}.', flags: { name: { value: 'NAME', required: true, help: "the team's name" } } },
  'team enable-subscriptions': { module: 'access', help: 'Lets the team subscribe to events. Prints {"teamId","subscriptions":true}.', flags: { team: TEAM } },
  'member add': {
    module: 'access',
    help: 'Adds a member (owner, creator, approver) to a team. Prints {"userId"}.',
    flags: { team: TEAM, name: { value: 'NAME', required: true, help: "the member's name" } },
  },
  'key create': {
    module: 'access',
    help: 'Creates an API key; the plain key is shown once. Prints {"keyId","key","role","expiresAt"}.',
    flags: {
      team: TEAM,
      role: { value: 'ROLE', help: 'view_only (default), usable, editable or manage' },
      'expires-at': { value: 'RFC3339', help: 'when the key stops working; must be in the future' },
    },
  },
  'key set-role': {
    module: 'access',
    help: 'Changes a key\'s role from its next request on. Prints {"keyId","role"}.',
    flags: {
      'key-id': KEY_ID,
      role: { value: 'ROLE', required: true, help: 'view_only, usable, editable or manage' },
    },
  },
  'key revoke': {
    module: 'access',
    help: 'Deactivates a key. Prints {"keyId","active":false}.',
    flags: { 'key-id': KEY_ID },
  },

  'asset import': {
    module: 'asset',
    help: 'Imports a file (--file) or a directory tree (--dir) into the team library. Prints {"id","assetId","folderIds"} or {"imported","failed"}.',
    flags: {
      team: TEAM,
      file: { value: 'PATH', help: 'a file to import (exactly one of --file and --dir)' },
      dir: { value: 'PATH', help: 'a directory to import, mirroring its tree; a progress bar on stderr' },
      folder: { value: '/a/b', help: 'the folder path to import into (created as needed); default the root' },
      name: { value: 'N', help: "the file's name (--file only); default the file's own name" },
      tags: { value: 'a,b', help: 'comma-separated tags (--file only)' },
      description: { value: 'D', help: 'a description (--file only)' },
      score: { value: '0-5', help: 'a rating (--file only)' },
      link: { value: 'URL', help: 'an http(s) link (--file only)' },
      user: { value: 'USERID', help: 'the member who owns and created the file (--file only)' },
      'version-of': { value: 'ID', help: "make the bytes the newest version of this file's line (--file only)" },
      cover: { help: 'with --version-of: make the new version the cover' },
      pending: { help: 'hold the import as pending inbound until confirmed; prints {"pendingIds"}' },
    },
  },
  'asset rename': {
    module: 'asset-edit',
    help: 'Renames a file, as the member. Prints the file as search shows it.',
    flags: { user: USER, file: FILE_ID, name: { value: 'N', required: true, help: 'the new name: 1-255 characters, no slash' } },
  },
  'asset move': {
    module: 'asset-edit',
    help: 'Moves a file to a folder of the team (or the root), as the member. Prints the file as search shows it.',
    flags: { user: USER, file: FILE_ID, folder: { value: 'ID|root', required: true, help: 'the target folder id, or root' } },
  },
  'asset tags': {
    module: 'asset-edit',
    help: "Replaces a file's tags, as the member. Prints the file as search shows it.",
    flags: { user: USER, file: FILE_ID, tags: { value: 'a,b', required: true, help: 'comma-separated tags; empty clears them' } },
  },
  'asset describe': {
    module: 'asset-edit',
    help: "Sets a file's description, as the member. Prints the file as search shows it.",
    flags: { user: USER, file: FILE_ID, description: { value: 'D', required: true, help: 'the description; empty clears it' } },
  },
  'asset transfer': {
    module: 'asset-edit',
    help: 'Gives a file to another member of the team, as the member. Prints {"id"}.',
    flags: { user: USER, file: FILE_ID, owner: { value: 'USERID', required: true, help: 'the new owner, a member of the same team' } },
  },
  'asset validity': {
    module: 'asset-edit',
    help: "Sets a file's validity period, as the member. Prints the file's validity.",
    flags: {
      user: USER,
      file: FILE_ID,
      start: { value: 'RFC3339|none', help: 'valid from; none or omitted: from the start' },
      end: { value: 'RFC3339|none', help: 'expires at; none or omitted: permanent' },
    },
  },
  'asset analysis set': {
    module: 'asset-analysis',
    help: 'Records image analysis made elsewhere for a file of the team. Prints {"id"}.',
    flags: {
      team: TEAM,
      'file-id': FILE_ID,
      'ai-tags': { value: 'T', help: 'tags as text; empty clears' },
      'ai-title': { value: 'T', help: 'a title; empty clears' },
      'ai-description': { value: 'D', help: 'a description; empty clears' },
      'ai-detailed-description': { value: 'JSON', help: 'a JSON array; empty clears' },
    },
  },

  'asset delete': {
    module: 'asset-bin',
    help: 'Moves a file to the team\'s recycle bin, as the member. Prints {"id","recycleEntryId"}.',
    flags: { user: USER, file: FILE_ID },
  },
  'asset folder delete': {
    module: 'asset-bin',
    help: 'Moves a folder with its subtree to the recycle bin, as the member. Prints {"id","recycleEntryId","folderIds","fileIds"}.',
    flags: { user: USER, folder: { value: 'ID', required: true, help: 'the folder' } },
  },
  'asset bin list': {
    module: 'asset-bin',
    help: 'Lists the recycle bin, newest first. Prints {"items","nextAfter"}.',
    flags: {
      user: USER,
      first: { value: 'N', help: 'page size (1-100, default 50)' },
      after: { value: 'ENTRYID', help: 'the last entry id of the previous page' },
    },
  },
  'asset bin restore': { module: 'asset-bin', help: 'Restores recycle-bin entries. Prints {"fileIds","folderIds"}.', flags: { user: USER, ids: IDS } },
  'asset bin purge': {
    module: 'asset-bin',
    help: 'Removes recycle-bin entries for good. Prints {"entries","fileIds","folderIds","releasedObjects"}.',
    flags: { user: USER, ids: IDS },
  },
  'asset bin empty': {
    module: 'asset-bin',
    help: 'Empties the recycle bin for good. Prints {"entries","fileIds","folderIds","releasedObjects"}.',
    flags: { user: USER },
  },

  'asset metadata-field create': {
    module: 'asset-metadata',
    help: 'Defines a custom metadata field of the team. Prints the field.',
    flags: {
      team: TEAM,
      name: { value: 'N', required: true, help: "the field's name" },
      type: { value: 'TYPE', required: true, help: 'text, number, date or select' },
      options: { value: 'a,b', help: 'the choices of a select field' },
    },
  },
  'asset metadata-field list': { module: 'asset-metadata', help: 'Lists the team\'s metadata fields. Prints {"fields"}.', flags: { team: TEAM } },
  'asset field-template create': {
    module: 'asset-metadata',
    help: 'Defines a custom field template of the team. Prints the template with its fields.',
    flags: {
      team: TEAM,
      name: { value: 'N', required: true, help: "the template's name" },
      fields: { value: 'JSON', required: true, help: 'a JSON array of {name, type, options?}' },
    },
  },
  'asset field-template list': {
    module: 'asset-metadata',
    help: 'Lists the team\'s custom field templates by name, a page of them (100 by default: all of them). Prints {"templates"}.',
    flags: { team: TEAM, ...PAGING },
  },
  'asset metadata set': {
    module: 'asset-metadata',
    help: "Sets a file's metadata values, as the member. Prints the file's metadata.",
    flags: { user: USER, file: FILE_ID, values: { value: 'JSON', required: true, help: '{"<fieldId>": value, ...}; null clears a value' } },
  },
  'asset custom-fields set': {
    module: 'asset-metadata',
    help: "Sets a file's values of a custom field template, as the member. Prints the values.",
    flags: {
      user: USER,
      file: FILE_ID,
      template: { value: 'ID', required: true, help: 'the custom field template' },
      values: { value: 'JSON', required: true, help: '{"<customFieldId>": value, ...}; null clears a value' },
    },
  },

  'asset pending list': {
    module: 'asset-pending',
    help: "Lists the team's pending inbound imports, newest first. Prints the page.",
    flags: { team: TEAM, ...PAGING },
  },
  'asset pending confirm': {
    module: 'asset-pending',
    help: 'Places pending imports as files, in one transaction. Prints the new files.',
    flags: { team: TEAM, ids: IDS, user: { value: 'USERID', help: 'the member confirming; without it, the system' } },
  },
  'asset pending discard': {
    module: 'asset-pending',
    help: 'Discards pending imports. Prints what was discarded.',
    flags: { team: TEAM, ids: IDS, user: { value: 'USERID', help: 'the member discarding; without it, the system' } },
  },

  'asset version list': { module: 'asset-version', help: "Shows a file's version line, as the member. Prints the line.", flags: { user: USER, file: FILE_ID } },
  'asset version add': {
    module: 'asset-version',
    help: "Adds a file to another file's version line, as the member. Prints the line.",
    flags: {
      user: USER,
      file: FILE_ID,
      version: { value: 'ID', required: true, help: 'the file that becomes the newest version' },
      cover: { help: 'make it the cover' },
    },
  },
  'asset version cover': {
    module: 'asset-version',
    help: "Makes a version its line's cover, as the member. Prints the line.",
    flags: { user: USER, file: FILE_ID },
  },
  'asset version remove': {
    module: 'asset-version',
    help: 'Takes a version out of its line, as the member. Prints {"removed","recycleEntryId","line"}.',
    flags: {
      user: USER,
      file: FILE_ID,
      'remove-type': { value: 'add|delete', required: true, help: 'add: it stays a file of its own; delete: it goes to the recycle bin' },
    },
  },

  'category-icon import': {
    module: 'category-icon',
    help: 'Imports a category icon image. Prints {"id"} (a category\'s iconAssetId).',
    flags: { team: TEAM, file: { value: 'PATH', required: true, help: 'the image file' } },
  },
  'share create': {
    module: 'share',
    help: 'Shares a folder by an unguessable link token. Prints {"linkToken"}.',
    flags: { team: TEAM, folder: { value: '/a/b', required: true, help: 'the folder path' }, password: { value: 'P', help: 'a password the link asks for' } },
  },

  'webhook list': { module: 'webhook', help: 'Lists the team\'s webhook endpoints. Prints {"endpoints"}.', flags: { team: TEAM } },
  'webhook deliveries': {
    module: 'webhook',
    help: 'Lists an endpoint\'s deliveries, newest first. Prints {"deliveries","pagination"}.',
    flags: {
      team: TEAM,
      endpoint: ENDPOINT,
      status: { value: 'S', help: 'only deliveries in this state' },
      from: { value: 'RFC3339', help: 'created at or after' },
      to: { value: 'RFC3339', help: 'created before' },
      ...PAGING,
    },
  },
  'webhook attempts': {
    module: 'webhook',
    help: 'Lists a delivery\'s attempts. Prints {"attempts"}.',
    flags: { team: TEAM, delivery: { value: 'ID', required: true, help: 'the delivery' } },
  },
  'webhook replay': {
    module: 'webhook',
    help: 'Sends events to an endpoint again (at most 30 days back). Prints {"replayed"}.',
    flags: {
      team: TEAM,
      endpoint: ENDPOINT,
      'event-id': { value: 'UUID', help: 'one event (or give --from)' },
      from: { value: 'RFC3339', help: 'events from then on' },
      to: { value: 'RFC3339', help: 'events before then' },
    },
  },
  'webhook rotate-secret': {
    module: 'webhook',
    help: 'Gives an endpoint a new signing secret; the old one signs too for 24 h. Prints the endpoint.',
    flags: { team: TEAM, endpoint: ENDPOINT },
  },
  'webhook enable': {
    module: 'webhook',
    help: 'Activates an endpoint again; its pending deliveries resume. Prints the endpoint.',
    flags: { team: TEAM, endpoint: ENDPOINT },
  },
  'webhook test': {
    module: 'webhook',
    help: 'Sends a signed WEBHOOK_TEST event to an endpoint through the usual delivery (logged, retried). Prints {"eventId","deliveryId"}.',
    flags: { team: TEAM, endpoint: ENDPOINT },
  },

  'approval-template create': {
    module: 'approval',
    help: 'Creates an approval template from a workflow file. Prints {"id"}.',
    flags: { team: TEAM, file: { value: 'WORKFLOW.json', required: true, help: 'the workflow file (CONTRACT.md)' } },
  },
  'approval decide': {
    module: 'approval',
    help: 'Approves or rejects a task\'s current node, as the member. Prints {"taskId","status"}.',
    flags: {
      task: TASK,
      user: USER,
      decision: { value: 'approved|rejected', required: true, help: 'the decision' },
      comment: COMMENT,
    },
  },
  'approval resubmit': {
    module: 'approval',
    help: 'Resubmits a rejected task with new versions of its assets, as the member. Prints {"taskId","status"}.',
    flags: {
      task: TASK,
      user: USER,
      file: { value: 'PATH', required: true, multiple: true, help: 'a new version of an asset, in order (repeatable)' },
      position: { value: 'N', multiple: true, help: 'the 0-based position of the asset each --file replaces, one per --file; none: every asset in order' },
      comment: COMMENT,
    },
  },
  'approval cancel': {
    module: 'approval',
    help: 'Cancels a task (its submitter only), as the member. Prints {"taskId","status":"CANCELED"}.',
    flags: { task: TASK, user: USER },
  },
  'storage copy': {
    module: 'storage',
    help: 'Copies every referenced object from one store to the other, each verified by SHA-256; resumable (objects already there are skipped); a progress bar on stderr. Prints {"objects","bytes","copied","copiedBytes","skipped","missingAtSource","failed"}.',
    flags: {
      from: { value: 'local|s3', required: true, help: 'the store to copy from: local (STORAGE_DIR) or s3 (the S3_* settings)' },
      to: { value: 'local|s3', required: true, help: 'the store to copy to' },
    },
  },
  'storage check': {
    module: 'storage',
    help: 'Checks a store against the database: referenced objects missing or of the wrong size, and objects nothing references. Prints {"referenced","ok","missing","wrongSize","unreferenced",...}.',
    flags: {
      store: { value: 'local|s3', help: 'the store to check (default: STORAGE_BACKEND)' },
      'remove-unreferenced': { help: 'remove the unreferenced objects older than an hour' },
    },
  },
} as const satisfies Record<string, CommandDef>;

export type CommandName = keyof typeof COMMANDS;

/** The commands one module must run: exactly these (tsc checks each module's `handlers`). */
export type CommandsOf<M extends ModuleName> = { [K in CommandName]: (typeof COMMANDS)[K]['module'] extends M ? K : never }[CommandName];

export type Handlers<M extends ModuleName> = { readonly [K in CommandsOf<M>]: Handler };

/** Loads a command module only when one of its commands runs. */
export const MODULES: { readonly [M in ModuleName]: () => Promise<{ handlers: Handlers<M> }> } = {
  access: () => import('./commands/access.ts'),
  asset: () => import('./commands/asset.ts'),
  'asset-edit': () => import('./commands/asset-edit.ts'),
  'asset-analysis': () => import('./commands/asset-analysis.ts'),
  'asset-bin': () => import('./commands/asset-bin.ts'),
  'asset-metadata': () => import('./commands/asset-metadata.ts'),
  'asset-pending': () => import('./commands/asset-pending.ts'),
  'asset-version': () => import('./commands/asset-version.ts'),
  'category-icon': () => import('./commands/category-icon.ts'),
  share: () => import('./commands/share.ts'),
  webhook: () => import('./commands/webhook.ts'),
  approval: () => import('./commands/approval.ts'),
  storage: () => import('./commands/storage.ts'),
};

export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

export function commandDef(name: string): CommandDef | undefined {
  return Object.hasOwn(COMMANDS, name) ? (COMMANDS as Record<string, CommandDef>)[name] : undefined;
}

/** The handler of a registered command, loading its module. */
export async function loadHandler(name: CommandName): Promise<Handler> {
  const def: CommandDef = COMMANDS[name];
  const { handlers } = await MODULES[def.module]();
  return (handlers as Record<string, Handler>)[name]!;
}
