import { Migration } from '@mikro-orm/migrations';

/**
 * Every armed timer by deadline, queued or not: a timer's job fires the overdue ones with its own
 * (src/core/approvals/timeouts.ts), and the relay looks for timers overdue after queueing (a job
 * lost with Redis); without it both read every task ever made.
 */
export class Migration20261126210000 extends Migration {
  override name = 'Migration20261126210000';

  override up(): void | Promise<void> {
    this.addSql(`create index "approval_tasks_timer_armed_index" on "approval_tasks" ("timeout_at") where "timeout_at" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "approval_tasks_timer_armed_index";`);
  }
}
