import type { FastifyReply } from 'fastify';
import { AnswerAllowance, type AnswerBudget } from '../core/platform/answer-budget.ts';
import type { Ctx } from '../core/platform/ctx.ts';
import { whenResponseCloses } from './response-closed.ts';

/**
 * Gives a request's context the allowance its heavy reads admit their size against (docs/operations.md
 * "Memory"); the budget leases it takes are given back once the answer is written or the client went
 * away. `maxBytes` caps what one answer may carry (GraphQL's GRAPHQL_MAX_RESPONSE_MB); REST answers
 * whose pages are bounded by their page size leave it open and only wait for the budget.
 */
export function holdAnswer(ctx: Ctx, reply: FastifyReply, budget: AnswerBudget, maxBytes = Number.MAX_SAFE_INTEGER): Ctx {
  const answer = new AnswerAllowance(budget, maxBytes);
  ctx.answer = answer;
  whenResponseCloses(reply.raw, () => answer.releaseAll());
  return ctx;
}
