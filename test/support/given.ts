import sharp from 'sharp';
import type { Role } from '../../src/core/access/roles.ts';
import type { BrandView } from '../../src/core/catalogue/brands/brand.schemas.ts';
import type { CategoryView } from '../../src/core/catalogue/categories/category.schemas.ts';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import type { TestEnv } from './env.ts';

export interface GivenTeam {
  teamId: number;
}

export interface GivenKey {
  teamId: number;
  keyId: number;
  key: string;
  role: Role;
}

/** Fixture builders: they go through the core, as an operator would, and return what they made. */
export function given(env: TestEnv) {
  const op = () => env.core.operatorCtx();
  return {
    async team(name = 'Team'): Promise<GivenTeam> {
      return env.core.access.createTeam(op(), { name });
    },
    async member(team: GivenTeam, name = 'Member'): Promise<{ userId: number }> {
      return env.core.access.addMember(op(), { teamId: team.teamId, name });
    },
    /** A key; an `expiresAt` in the past gives a key that has expired (the core refuses to issue one, so it is backdated). */
    async key(team: GivenTeam, role: Role = 'manage', expiresAt?: string): Promise<GivenKey> {
      const expired = expiresAt !== undefined && Date.parse(expiresAt) <= Date.now();
      const created = await env.core.access.createKey(op(), { teamId: team.teamId, role, expiresAt: expired ? undefined : expiresAt });
      if (expired) await env.orm.em.fork().execute('update api_keys set expires_at = ? where id = ?', [expiresAt, created.keyId]);
      return { teamId: team.teamId, keyId: created.keyId, key: created.key, role };
    },
    /** A manage-role caller's core context, for setting up data without HTTP. */
    async ctx(key: GivenKey): Promise<Ctx> {
      const actor = await env.core.access.authenticate(op(), `Bearer ${key.key}`);
      return env.core.ctxFor(actor, 'test');
    },
    async brand(key: GivenKey, input: Record<string, unknown> = {}): Promise<BrandView> {
      const ctx = await this.ctx(key);
      const outcome = await env.core.catalogue.brands.create(ctx, { name: 'Brand', ...input });
      return outcome.body;
    },
    async category(key: GivenKey, input: { brandId: number; name: string } & Record<string, unknown>): Promise<CategoryView> {
      const ctx = await this.ctx(key);
      const outcome = await env.core.catalogue.categories.create(ctx, input);
      return outcome.body;
    },
    /** A category icon asset of the team (a real 8x8 PNG stored under STORAGE_DIR). */
    async categoryIcon(team: GivenTeam): Promise<{ id: number }> {
      const png = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#3366ff' } })
        .png()
        .toBuffer();
      return env.core.catalogue.categoryIcons.importIcon(op(), { teamId: team.teamId, bytes: png });
    },
    /** A library file: imports a file on disk through the core, as `asset import --file` does (input keys are the CLI flags). */
    async libraryFile(team: GivenTeam, input: { file: string } & Record<string, unknown>): Promise<{ id: number; assetId: number; folderIds: number[] }> {
      return env.core.assets.libraryImport.importFile(op(), { team: team.teamId, ...input });
    },
  };
}
