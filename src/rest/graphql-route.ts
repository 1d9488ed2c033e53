import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga } from 'graphql-yoga';
import type { Core } from '../core/core.ts';
import type { GqlContext } from '../graphql/context.ts';
import { maskDomainErrors } from '../graphql/errors.ts';
import { schema } from '../graphql/index.ts';
import { refuseUnsafeInput } from '../core/platform/json-input.ts';

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
}

/** What GraphiQL opens with: a first query, and how to send the key. */
export const GRAPHIQL_DEFAULT_QUERY = `# Shelf GraphQL. Put your API key in the Headers tab below:
#   { "Authorization": "Bearer <your API key>" }
# A frontend acting for a signed-in member adds "X-Shelf-Member": "<userId>".
# The Docs panel describes every type and field.
query FirstLook {
  brands(page: 1, pageSize: 5) {
    items { id name code }
    pagination { totalCount }
  }
}
`;

/** graphql-yoga at /graphql, mounted as one Fastify route; the same Bearer key authenticates. */
export async function graphqlRoute(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const yoga = createYoga<ServerContext, GqlContext>({
    schema,
    graphqlEndpoint: '/graphql',
    logging: false,
    maskedErrors: { maskError: maskDomainErrors },
    // GraphiQL from the installed package: its scripts, styles and icon are inlined, so the page
    // loads nothing from another origin (offline, behind a proxy, under a strict CSP)
    renderGraphiQL,
    graphiql: core.config.graphiql ? { title: 'Shelf GraphQL', defaultQuery: GRAPHIQL_DEFAULT_QUERY, headers: '{\n  "Authorization": "Bearer <your API key>"\n}' } : false,
    context: async ({ req, params }) => {
      // variables and literals alike: a NUL character or variables nested too deep are refused before anything runs
      refuseUnsafeInput(params.variables ?? {}, 'variables');
      if (params.query?.includes('\u0000')) refuseUnsafeInput(params.query, 'query');
      const key = await core.access.authenticate(core.operatorCtx(), req.headers.authorization);
      // a frontend names the signed-in member it acts for (README "Callers"); without it the key acts
      const member = req.headers['x-shelf-member'];
      const actor = member === undefined ? key : await core.access.actForMember(core.operatorCtx(), key, Array.isArray(member) ? member[0] : member);
      return { core, ctx: core.ctxFor(actor, req.id) } as GqlContext;
    },
  });

  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => {
        reply.header(key, value);
      });
      reply.status(response.status);
      reply.send(response.body);
      return reply;
    },
  });
}
