/** A pending inbound as the list shows it (GraphQL `PendingInbound`, `asset pending list`). */
export interface PendingInboundView {
  id: number;
  /** Where it will be placed: `/a/b`, or `/` for the library root. */
  folderPath: string;
  name: string;
  extension: string | null;
  mimeType: string;
  /** Bytes. */
  byteSize: number;
  width: number | null;
  height: number | null;
  /** Milliseconds; null when not audio or video or unknown. */
  durationMs: number | null;
  tags: string[];
  description: string | null;
  score: number | null;
  link: string | null;
  /** The member the import named (`--user`); null without one. */
  userId: number | null;
  /** RFC 3339, UTC, microseconds. */
  createdAt: string;
}
