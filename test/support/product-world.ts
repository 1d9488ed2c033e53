import { afterAll, beforeAll } from 'vitest';
import { ROLES, type Role } from '../../src/core/access/roles.ts';
import type { TemplateView } from '../../src/core/catalogue/templates/template.schemas.ts';
import { createTestEnv, type TestEnv } from './env.ts';
import { type GivenKey, type GivenTeam, given } from './given.ts';
import { ALL_TYPES_FIELDS, fieldIds, givenProducts } from './given-products.ts';
import { givenTemplates } from './given-templates.ts';
import { tempDir } from './media-files.ts';

type TempDir = Awaited<ReturnType<typeof tempDir>>;

/**
 * What the product test files share: their own environment with a storage directory, the fixture
 * builders (library files go into an inputs directory), a team with a key of every role, another
 * team with a manage key for isolation checks and, on request, a template of every field type.
 */
export interface ProductWorld {
  env: TestEnv;
  /** The environment's STORAGE_DIR. */
  storage: TempDir;
  /** Where the builders write the files they import. */
  inputs: TempDir;
  g: ReturnType<typeof given>;
  /** Products, library files (written to the inputs directory) and snapshots. */
  gp: ReturnType<typeof givenProducts>;
  gt: ReturnType<typeof givenTemplates>;
  team: GivenTeam;
  /** A key of `team` for every role. */
  keys: Record<Role, GivenKey>;
  /** Another team, and a manage key of it. */
  other: GivenTeam;
  stranger: GivenKey;
  /** With `template: true`: a template of `team` holding one field of every type (ALL_TYPES_FIELDS), made by its manage key. */
  template?: TemplateView;
  /** With `template: true`: the template's field ids by field key (`fieldIds`). */
  ids?: Record<string, string>;
}

export interface ProductWorldOptions {
  /** The name of `team`; the builders' default when omitted. */
  team?: string;
  /** The name of `other`; 'Other' when omitted. */
  other?: string;
  /** Makes `template` and `ids`. */
  template?: boolean;
  /** Extra environment settings of the world's environment (createTestEnv overrides). */
  env?: Record<string, string>;
}

/**
 * Registers the hooks of a product test file: the world above is built before its tests and its
 * environment and directories are removed after them. The fields are set once the file's first
 * beforeAll has run; read them in hooks and tests, not at module level. A file that needs more
 * (library files, brands, other keys) builds it in a beforeAll of its own with `g`, `gp` and `gt`.
 */
export function useProductWorld(options: ProductWorldOptions = {}): ProductWorld {
  const world = {} as ProductWorld;
  beforeAll(async () => {
    world.storage = await tempDir('products-storage');
    world.inputs = await tempDir('products-inputs');
    world.env = await createTestEnv({ STORAGE_DIR: world.storage.path, ...options.env });
    world.g = given(world.env);
    world.gp = givenProducts(world.env, world.inputs.path);
    world.gt = givenTemplates(world.env);
    world.team = await world.g.team(options.team);
    const keys: Partial<Record<Role, GivenKey>> = {};
    for (const role of ROLES) keys[role] = await world.g.key(world.team, role);
    world.keys = keys as Record<Role, GivenKey>;
    world.other = await world.g.team(options.other ?? 'Other');
    world.stranger = await world.g.key(world.other, 'manage');
    if (options.template) {
      world.template = await world.gt.template(world.keys.manage, { groups: [{ name: 'All', fields: ALL_TYPES_FIELDS }] });
      world.ids = fieldIds(world.template);
    }
  });
  afterAll(async () => {
    await world.env?.close();
    await world.storage?.remove();
    await world.inputs?.remove();
  });
  return world;
}
