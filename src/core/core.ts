import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { AccessService } from './access/access.service.ts';
import { LocalDiskStorage, type Storage } from './assets/storage.ts';
import { BrandService } from './catalogue/brand.service.ts';
import type { Actor, Ctx } from './platform/ctx.ts';

/** The domain core as the adapters see it: one instance of each service, sharing one ORM. */
export interface Core {
  orm: MikroORM;
  config: Config;
  access: AccessService;
  brands: BrandService;
  /** File bytes (library files, icons, derived images) under STORAGE_DIR. */
  storage: Storage;
  /** A unit of work for one request of one caller. */
  ctxFor(actor: Actor, requestId: string): Ctx;
  /** A unit of work for operator commands and unauthenticated lookups. */
  operatorCtx(): Pick<Ctx, 'em'>;
}

export function createCore(orm: MikroORM, config: Config): Core {
  const logoHosts = [new URL(config.publicBaseUrl).hostname.toLowerCase(), ...config.logoHostAllowlist];
  return {
    orm,
    config,
    access: new AccessService(),
    brands: new BrandService({ logoHosts }),
    storage: new LocalDiskStorage(config.storageDir),
    ctxFor: (actor, requestId) => ({ em: orm.em.fork(), teamId: actor.teamId, actor, requestId }),
    operatorCtx: () => ({ em: orm.em.fork() }),
  };
}
