/*
 * Objects written in pieces (an upload's PATCHes, docs/library.md "How an upload is kept"): each
 * piece is appended where the last one ended, maybe by another process, and the object becomes
 * readable under its key once completed. What a backend needs to continue one (an S3 multipart
 * upload's id and parts) is its `AppendState`, which the caller keeps between pieces (the upload's
 * row), so no process has to remember anything.
 */

/** What a backend keeps between pieces (JSON); `{}` on local disk. */
export type AppendState = Record<string, unknown>;

/** Where the next piece goes: after `offset` bytes of an object of `length` in all, continuing `state` (null: the first piece). */
export interface AppendPoint {
  offset: number;
  length: number;
  state: AppendState | null;
}

/** A piece appended, not yet recorded by the caller. */
export interface AppendedPiece {
  /** Bytes of the source appended. */
  written: number;
  /** The state to keep once the piece is recorded (the same state when nothing was written). */
  state: AppendState;
  /** The caller recorded the piece: what only the previous state needed goes (S3: the previous tail). */
  recorded(): Promise<void>;
  /** The caller did not record the piece (a checksum mismatch, a lost lease): what it alone wrote goes. */
  drop(): Promise<void>;
}
