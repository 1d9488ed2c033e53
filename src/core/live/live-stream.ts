import { hasPermission, isRole, type Role } from '../access/roles.ts';
import type { TeamScope } from '../platform/ctx.ts';
import { type LiveRow, rowsAfter } from './live-events.queries.ts';

/** The streams a subscription reads (docs/graphql.md "Live updates"). */
export const LIVE_STREAMS = ['library', 'approval', 'product'] as const;
export type LiveStream = (typeof LIVE_STREAMS)[number];

/** Rows a catching-up stream reads from PostgreSQL at once. */
const PAGE = 500;
/** Rows that may arrive at once (a relay step positions at most 1,000): room beyond the buffer while the connection takes writes. */
const BURST = 1000;

/** Why a stream ended: the code its last message carries (docs/graphql.md "Live updates"). */
export type EndCode = 'key_revoked' | 'slow_consumer' | 'server_draining' | 'stream_closed';

/** The end of a stream, thrown by its iterator so the transport writes its code. */
export class StreamEnded extends Error {
  readonly code: EndCode;
  constructor(code: EndCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** What a subscription watches: one stream of the team, narrowed by a folder, task, brand or category. */
export interface StreamScope {
  stream: LiveStream;
  folderId?: number | null;
  taskId?: string | null;
  brandId?: number | null;
  categoryId?: number | null;
}

/** Whether a row is in a subscription's scope and its key's role may read it now. */
export function visible(scope: StreamScope, role: Role, row: LiveRow): boolean {
  if (row.stream !== scope.stream) return false;
  if (scope.stream === 'library') return scope.folderId == null || row.folderIds.includes(scope.folderId);
  if (scope.stream === 'approval') return scope.taskId == null || row.subjectId === scope.taskId;
  if (row.draftsOnly && !hasPermission(role, 'products:read_drafts')) return false;
  if (scope.brandId != null && row.brandId !== scope.brandId) return false;
  return scope.categoryId == null || row.categoryId === scope.categoryId;
}

/**
 * One open subscription: rows of its team in position order, filtered by its scope and its key's
 * current role. It starts by reading PostgreSQL from its resume position (page by page, only as
 * fast as the client takes them) and switches to the rows its team's feed hands it; at most
 * `buffer` rows wait behind a client's full connection, then it ends with `slow_consumer`.
 */
export class LiveSubscription implements AsyncIterable<LiveRow> {
  readonly keyId: number;
  readonly teamId: number;
  role: Role;
  readonly scope: StreamScope;
  /** The position of the last row taken (read or handed), sent or filtered out. */
  private cursor: number;
  private catchingUp: boolean;
  private collecting = false;
  private pending: LiveRow[] = [];
  private pendingOverflow = false;
  private readonly queue: LiveRow[] = [];
  private readonly buffer: number;
  private blocked = false;
  private ended: StreamEnded | null = null;
  private wake: (() => void) | null = null;
  private readonly db: TeamScope;
  onClose: (() => void) | null = null;

  constructor(options: { keyId: number; teamId: number; role: Role; scope: StreamScope; from: number; resume: boolean; buffer: number; db: TeamScope }) {
    this.keyId = options.keyId;
    this.teamId = options.teamId;
    this.role = options.role;
    this.scope = options.scope;
    this.cursor = options.from;
    this.catchingUp = options.resume;
    this.buffer = options.buffer;
    this.db = options.db;
  }

  /** A row from the team's feed (in position order). */
  offer(row: LiveRow): void {
    if (this.ended) return;
    if (this.catchingUp) {
      if (!this.collecting) return;
      if (this.pending.length >= this.buffer) this.pendingOverflow = true;
      else this.pending.push(row);
      return;
    }
    this.take(row);
  }

  private take(row: LiveRow): void {
    if (row.position <= this.cursor) return;
    this.cursor = row.position;
    if (!visible(this.scope, this.role, row)) return;
    // a burst (one relay step's rows) arrives at once and is written as fast as the connection
    // takes it; only rows that wait behind a full connection count against the buffer
    if (this.queue.length >= (this.blocked ? this.buffer : this.buffer + BURST)) {
      this.dropSlow();
      return;
    }
    this.queue.push(row);
    this.wake?.();
  }

  private dropSlow(): void {
    this.end(new StreamEnded('slow_consumer', `More than ${this.buffer} updates waited for this client; reconnect with the last position to continue.`));
  }

  /** The transport's connection is full (true) or takes writes again (false): while full, at most `buffer` rows wait. */
  setBlocked(blocked: boolean): void {
    this.blocked = blocked;
    if (blocked && this.queue.length >= this.buffer) this.dropSlow();
  }

  /** The key's role changed (the hub re-checks keys): later rows are filtered by the new role. */
  setRole(role: string): void {
    if (isRole(role)) this.role = role;
  }

  /** Ends the stream: rows still waiting are dropped (the client resumes from its last position) and the iterator throws `reason`. */
  end(reason: StreamEnded): void {
    if (this.ended) return;
    this.ended = reason;
    this.queue.length = 0;
    this.wake?.();
    this.onClose?.();
    this.onEnd?.();
  }

  /** Called once when the stream ends: the transport, waiting for a full connection to drain, stops waiting. */
  onEnd: (() => void) | null = null;

  get isEnded(): boolean {
    return this.ended !== null;
  }

  /** Catch-up: the next page from PostgreSQL; the page that comes back short switches the stream to its feed's rows. */
  private async readPage(): Promise<void> {
    this.collecting = true;
    this.pending = [];
    this.pendingOverflow = false;
    const rows = await rowsAfter(this.db, this.cursor, PAGE);
    for (const row of rows) {
      this.cursor = row.position;
      if (visible(this.scope, this.role, row)) this.queue.push(row);
    }
    // rows handed meanwhile are committed and positioned: a further page would read them too
    if (rows.length < PAGE && !this.pendingOverflow) {
      this.catchingUp = false;
      this.collecting = false;
      const handed = this.pending;
      this.pending = [];
      for (const row of handed) this.take(row);
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LiveRow> {
    try {
      for (;;) {
        if (this.ended) throw this.ended;
        const row = this.queue.shift();
        if (row) {
          yield row;
          continue;
        }
        if (this.catchingUp) {
          await this.readPage();
          continue;
        }
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = null;
      }
    } finally {
      this.end(new StreamEnded('stream_closed', 'The stream was closed.'));
    }
  }
}
