import { describe, expect, it } from 'vitest';
import { QUEUE_NAMES, type QueueName } from '../../src/queues.ts';
import { checkRegistry, type Processor } from '../../workers/registry.ts';

const noop: Processor = async () => undefined;

describe('workers/registry.ts maps every queue to exactly one processor', () => {
  it('refuses to start with a queue that has no processor, naming it', () => {
    const partial = new Map<QueueName, Processor>([['maintenance', noop]]);
    expect(() => checkRegistry(partial)).toThrow(/no processor for queue\(s\): webhook-delivery, approval-timeout/);
  });

  it('accepts a registry that serves every queue', () => {
    const full = new Map<QueueName, Processor>(QUEUE_NAMES.map((name) => [name, noop]));
    expect(checkRegistry(full).size).toBe(QUEUE_NAMES.length);
  });
});
