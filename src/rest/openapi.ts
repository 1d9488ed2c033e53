import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from '../config.ts';

/** The OpenAPI 3.1 document of Area A and the open API, generated from the route schemas (spec 9). */
export function openApiInfo(config: Pick<Config, 'publicBaseUrl'>): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Shelf service API',
        version: '1.0.0',
        description:
          'Area A (catalogue, /v1) and the open API (/open: asset search) of Shelf. Every response carries X-Request-Id and Cache-Control. Failures use the error envelope of their area: ErrorEnvelope under /v1, OpenErrorEnvelope (code, message, result, traceId) under /open.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key of your team' } },
      },
    },
    // only the public API goes into the document; health, metrics, docs and GraphQL stay out
    hideUntagged: true,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) => ('openapiObject' in document ? markOptionalBodies(document.openapiObject) : document.swaggerObject),
  };
}

/** Marks a route whose JSON body may be omitted (e.g. deleteTemplate); @fastify/swagger marks every body required. */
export const OPTIONAL_BODY = 'x-optional-body';

type Operation = { requestBody?: { required?: boolean }; [OPTIONAL_BODY]?: boolean };

function markOptionalBodies<T extends { paths?: object }>(document: T): T {
  for (const path of Object.values(document.paths ?? {}) as Array<Record<string, unknown> | undefined>) {
    for (const operation of Object.values(path ?? {}) as Operation[]) {
      if (!operation?.[OPTIONAL_BODY]) continue;
      delete operation[OPTIONAL_BODY];
      if (operation.requestBody) operation.requestBody.required = false;
    }
  }
  return document;
}
