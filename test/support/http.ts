import type { TestEnv } from './env.ts';

export interface Sent {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  url: string;
  key?: string | null;
  body?: unknown;
  /** Sent as is, for malformed-body tests. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface Received {
  status: number;
  headers: Record<string, string | undefined>;
  body: any;
  text: string;
}

/** A request as a client sends it, through the real Fastify app (inject: no socket, same pipeline). */
export async function send(env: TestEnv, sent: Sent): Promise<Received> {
  const headers: Record<string, string> = { ...sent.headers };
  if (sent.key) headers.authorization = `Bearer ${sent.key}`;
  let payload: string | undefined = sent.rawBody;
  if (sent.body !== undefined) {
    payload = JSON.stringify(sent.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await env.app.inject({ method: sent.method ?? 'GET', url: sent.url, headers, payload });
  let body: unknown;
  try {
    body = response.json();
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, headers: response.headers as Record<string, string | undefined>, body, text: response.body };
}

/** POST a GraphQL operation with a key. */
export async function graphql(env: TestEnv, key: string | null, query: string, variables: Record<string, unknown> = {}): Promise<Received> {
  return send(env, { method: 'POST', url: '/graphql', key, body: { query, variables } });
}
