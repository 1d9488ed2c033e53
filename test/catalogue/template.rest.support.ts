import { afterAll, beforeAll } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { givenTemplates } from '../support/given-templates.ts';
import { send } from '../support/http.ts';

export const URL = '/v1/product-info-templates';
export const RFC3339_MICROS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** What the /v1/product-info-templates files share: an environment and a manage key of a team. */
export interface TemplateRestWorld {
  env: TestEnv;
  manager: GivenKey;
  g: ReturnType<typeof given>;
  t: ReturnType<typeof givenTemplates>;
}

/**
 * Registers the hooks that build the world above before a file's tests and close it after them,
 * and returns it (its fields set once the file's first beforeAll has run) with the helpers.
 */
export function useTemplateRest() {
  const world = {} as TemplateRestWorld;
  beforeAll(async () => {
    world.env = await createTestEnv();
    world.g = given(world.env);
    world.t = givenTemplates(world.env);
    world.manager = await world.g.key(await world.g.team(), 'manage');
  });
  afterAll(async () => world.env?.close());

  async function versionCount(templateId: string): Promise<number> {
    const rows = await world.env.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from template_versions where template_id = ?', [templateId]);
    return rows[0]!.n;
  }

  function create(body: unknown, key = world.manager.key, headers: Record<string, string> = {}) {
    return send(world.env, { method: 'POST', url: URL, key, body, headers });
  }

  return { world, versionCount, create };
}
