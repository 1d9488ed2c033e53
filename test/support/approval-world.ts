import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import { createEventWorld, type EventWorld } from './event-world.ts';
import { given } from './given.ts';
import { send } from './http.ts';

/** An HTTP server on 127.0.0.1 standing in for the public asset hosts of createApproval. */
export interface AssetServer {
  url: string;
  hostPort: string;
  requests: number;
  /** How many requests asked for this path. */
  requestsFor(path: string): number;
  /** Answers the requests held at `/held/...`; later ones are answered at once. */
  release(): void;
  close(): Promise<void>;
}

export async function startAssetServer(): Promise<AssetServer> {
  const state = { requests: 0, released: false };
  const perPath = new Map<string, number>();
  const held: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    state.requests++;
    const path = req.url ?? '/';
    perPath.set(path, (perPath.get(path) ?? 0) + 1);
    const answer = () => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from(`asset ${path}`));
    };
    if (path.startsWith('/bytes/')) {
      answer();
    } else if (path.startsWith('/fail-once/')) {
      // a host that fails the first request for a path and serves it afterwards
      if (perPath.get(path) === 1) {
        res.writeHead(503);
        res.end();
      } else {
        answer();
      }
    } else if (path.startsWith('/held/')) {
      // a download that stays in progress until the test releases it
      if (state.released) answer();
      else held.push(answer);
    } else if (path === '/big-declared') {
      res.writeHead(200, { 'content-length': '5000' });
      res.end(Buffer.alloc(5000));
    } else if (path === '/big-chunked') {
      res.writeHead(200);
      res.write(Buffer.alloc(3000));
      res.end(Buffer.alloc(3000));
    } else if (path === '/cut') {
      // a download that breaks midway: half the declared bytes, then the connection drops
      res.writeHead(200, { 'content-length': '3000' });
      res.write(Buffer.alloc(1500, 1), () => res.destroy());
    } else if (path === '/trickle') {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(timer));
    } else if (path === '/silent') {
      // never answers
    } else if (path === '/to-private') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest' });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    requestsFor(path: string) {
      return perPath.get(path) ?? 0;
    },
    release() {
      state.released = true;
      for (const send of held.splice(0)) send();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  } as AssetServer;
}

export interface ApprovalWorld extends EventWorld {
  assets: AssetServer;
  members: Record<'ann' | 'bob' | 'cat' | 'dan' | 'sub', number>;
  /** A member's core context (as the CLI's --user gives). */
  as(member: number): Promise<Ctx>;
  /** POST /approval with the world's key. */
  approval(body: unknown, key?: string): ReturnType<typeof send>;
  /** The payloads of the approval callbacks written so far for a task, in order. */
  callbacks(taskId: string): Promise<Record<string, any>[]>;
}

export async function createApprovalWorld(overrides: Record<string, string> = {}): Promise<ApprovalWorld> {
  const assets = await startAssetServer();
  // the receiver and the asset server are both allowed through the guard (CONTRACT.md OUTBOUND_ALLOW_HOSTS)
  const base = await createEventWorld({ APPROVAL_MAX_ASSET_BYTES: '4000', APPROVAL_DOWNLOAD_TIMEOUT_MS: '500', ...overrides }, [assets.hostPort]);
  const env = base.env;
  const members = {} as ApprovalWorld['members'];
  for (const name of ['ann', 'bob', 'cat', 'dan', 'sub'] as const) members[name] = (await given(env).member(base.team, name)).userId;
  const world: ApprovalWorld = Object.assign(base, {
    assets,
    members,
    async as(member: number) {
      return env.core.ctxFor(await env.core.access.memberAsOperator(env.core.operatorCtx(), member), 'test');
    },
    approval(body: unknown, key = base.key.key) {
      return send(env, { method: 'POST', url: '/approval', key, body });
    },
    async callbacks(taskId: string) {
      const rows = await env.orm.em
        .fork()
        .execute<{ body: { payload: Record<string, any> } }[]>(
          `select body from outbox_events where event_type = 'APPROVAL' and ordering_key = ? order by id`,
          [`task:${taskId}`],
        );
      return rows.map((r) => r.body.payload);
    },
  });
  const close = base.close;
  world.close = async () => {
    await close();
    await assets.close();
  };
  return world;
}
