import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { withSequence } from '../../src/core/events/delivery.service.ts';
import { signatureHeaders } from '../../src/core/events/signing.ts';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;

const bodies: Record<string, unknown>[] = [
  { eventId: 'e1', eventType: 'MATERIAL_DELETED', eventTime: '1764190000000', actor: { kind: 'key', id: 7 }, payload: { materialIds: [1, 2] } },
  { eventId: 'e2', payload: { name: 'Crème brûlée 😀 \u2028 "quoted" \\ back', '10': 'integer-like keys', '2': null, nested: { '': [] } } },
  { eventId: 'e3', big: 12345678901234567890, tiny: 1e-7, negativeZero: -0, empty: {}, list: [{}, [], ''] },
];

describe('Standard Webhooks signatures (docs/events.md "Signatures")', () => {
  it('signs byte for byte as the standardwebhooks package does, once per secret during a rotation', () => {
    const at = new Date('2026-11-25T12:00:00.987Z');
    for (const body of bodies.map((b) => JSON.stringify(b))) {
      const [current, previous] = [secret(), secret()];
      const headers = signatureHeaders([current, previous], 'evt-1', body, at);
      expect(headers['webhook-id']).toBe('evt-1');
      expect(headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
      expect(headers['webhook-signature']).toBe(`${new Webhook(current).sign('evt-1', at, body)} ${new Webhook(previous).sign('evt-1', at, body)}`);
    }
  });

  it('is verified by the standardwebhooks package with either secret of a rotation', () => {
    const body = JSON.stringify(bodies[1]);
    const [current, previous] = [secret(), secret()];
    const headers = signatureHeaders([current, previous], 'evt-2', body);
    expect(new Webhook(current).verify(body, headers)).toEqual(bodies[1]);
    expect(new Webhook(previous).verify(body, headers)).toEqual(bodies[1]);
    expect(() => new Webhook(secret()).verify(body, headers)).toThrow('No matching signature found');
  });

  it('refuses a secret that is not base64 rather than signing with another key', () => {
    expect(() => signatureHeaders(['whsec_not*base64'], 'evt-3', '{}')).toThrow('base64');
  });
});

describe('the body a receiver gets: the stored event plus its sequence', () => {
  it('is the very bytes of parsing the stored body, adding the sequence and serialising it again', () => {
    for (const body of [{}, ...bodies]) {
      const stored = JSON.stringify(body);
      expect(withSequence(stored, '42')).toBe(JSON.stringify({ ...JSON.parse(stored), sequence: 42 }));
    }
  });

  it('adds the sequence as the last member of a body stored with spaces, and to an empty one', () => {
    expect(withSequence('{ "eventId" : "e4" }\n', 3)).toBe('{ "eventId" : "e4" ,"sequence":3}');
    expect(withSequence('{ }', 1)).toBe('{ "sequence":1}');
    expect(JSON.parse(withSequence('{ "eventId" : "e4" }\n', 3))).toEqual({ eventId: 'e4', sequence: 3 });
  });
});
