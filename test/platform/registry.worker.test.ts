import { type Job, UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/core/core.ts';
import { QUEUE_NAMES, type QueueName } from '../../src/queues.ts';
import { MAINTENANCE_JOBS, type MaintenanceJob, maintenanceProcessor, maintenanceRegistry } from '../../workers/maintenance.worker.ts';
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

describe('workers/maintenance.worker.ts names every maintenance job once', () => {
  const core = {} as Core;
  const recorded = (ran: string[], name: string): MaintenanceJob => ({
    name,
    repeat: { every: 60_000 },
    run: async () => {
      ran.push(name);
      return name;
    },
  });

  it('refuses a registry that names a job twice, naming it', () => {
    const ran: string[] = [];
    expect(() => maintenanceRegistry([recorded(ran, 'purge-a'), recorded(ran, 'purge-b'), recorded(ran, 'purge-a')])).toThrow(
      'maintenance job purge-a is registered twice',
    );
  });

  it('fails a job whose name is not registered for good (UnrecoverableError), and runs no job', async () => {
    const ran: string[] = [];
    const processor = maintenanceProcessor(core, maintenanceRegistry([recorded(ran, 'purge-a')]));
    const failure = processor({ name: 'purge-z' } as Job);
    await expect(failure).rejects.toThrow(UnrecoverableError);
    await expect(failure).rejects.toThrow('no maintenance job is named purge-z');
    expect(ran).toEqual([]);
  });

  it('runs the registered job a job names, and only that one', async () => {
    const ran: string[] = [];
    const processor = maintenanceProcessor(core, maintenanceRegistry([recorded(ran, 'purge-a'), recorded(ran, 'purge-b')]));
    expect(await processor({ name: 'purge-b' } as Job)).toBe('purge-b');
    expect(ran).toEqual(['purge-b']);
  });

  it('registers the six jobs of a deployment', () => {
    expect([...MAINTENANCE_JOBS.keys()].sort()).toEqual([
      'purge-activity',
      'purge-events',
      'purge-idempotency',
      'purge-product-changes',
      'purge-uploads',
      'validity-check',
    ]);
  });
});
