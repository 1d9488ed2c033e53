import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, requireSameScope, type SyncScope } from '../../src/core/catalogue/products/sync-cursor.ts';
import { DomainError } from '../../src/core/platform/errors.ts';

const SECRET = 'cursor-secret-cursor-secret-cursor-secret';
const scope: SyncScope = {
  keyId: 7,
  role: 'manage',
  teamId: 3,
  filters: { brandId: 5, categoryId: null, status: null, search: null },
  pageSize: 50,
  lower: '2026-01-01T00:00:00.000000Z',
  upper: '2026-11-22T10:00:00.123456Z',
};

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (e) {
    return e instanceof DomainError ? `${e.code}:${e.details?.[0]?.field}` : 'other';
  }
  return undefined;
}

describe('sync cursors (spec 4.5: opaque, tamper-proof, bound to key, role, library, bounds, filters, page size)', () => {
  it('round-trips the scope and the keyset position', () => {
    const cursor = encodeCursor(SECRET, scope, { updatedAt: '2026-05-01T00:00:00.000001Z', id: 42 });
    expect(cursor.length).toBeLessThanOrEqual(8192);
    expect(decodeCursor(SECRET, cursor)).toEqual({ scope, position: { updatedAt: '2026-05-01T00:00:00.000001Z', id: 42 } });
  });

  it('refuses a cursor whose payload was altered', () => {
    const cursor = encodeCursor(SECRET, scope, null);
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(Buffer.from(body!, 'base64url').toString().replace('"keyId":7', '"keyId":8')).toString('base64url');
    expect(codeOf(() => decodeCursor(SECRET, `${forged}.${mac}`))).toBe('validation_failed:cursor');
  });

  it('refuses a cursor signed with another secret, truncated, or empty', () => {
    const cursor = encodeCursor(SECRET, scope, null);
    expect(codeOf(() => decodeCursor('another-secret-another-secret-another', cursor))).toBe('validation_failed:cursor');
    expect(codeOf(() => decodeCursor(SECRET, cursor.slice(0, -3)))).toBe('validation_failed:cursor');
    expect(codeOf(() => decodeCursor(SECRET, ''))).toBe('validation_failed:cursor');
    expect(codeOf(() => decodeCursor(SECRET, 'x'.repeat(8193)))).toBe('validation_failed:cursor');
  });

  it("refuses another key's or another role's cursor", () => {
    expect(codeOf(() => requireSameScope(scope, { keyId: 8, role: 'manage', teamId: 3 }, {}))).toBe('validation_failed:cursor');
    expect(codeOf(() => requireSameScope(scope, { keyId: 7, role: 'view_only', teamId: 3 }, {}))).toBe('validation_failed:cursor');
    expect(codeOf(() => requireSameScope(scope, { keyId: 7, role: 'manage', teamId: 4 }, {}))).toBe('validation_failed:cursor');
  });

  it('accepts repeated equivalent parameters and refuses changed ones', () => {
    const me = { keyId: 7, role: 'manage', teamId: 3 };
    expect(codeOf(() => requireSameScope(scope, me, { pageSize: 50, filters: { brandId: 5 }, lower: scope.lower }))).toBeUndefined();
    expect(codeOf(() => requireSameScope(scope, me, { filters: { brandId: 6 } }))).toBe('validation_failed:brandId');
    expect(codeOf(() => requireSameScope(scope, me, { filters: { status: 'draft' } }))).toBe('validation_failed:status');
    expect(codeOf(() => requireSameScope(scope, me, { pageSize: 20 }))).toBe('validation_failed:pageSize');
    expect(codeOf(() => requireSameScope(scope, me, { lower: '2026-01-02T00:00:00.000000Z' }))).toBe('validation_failed:updatedAfter');
  });
});
