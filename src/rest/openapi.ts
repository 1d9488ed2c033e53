import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from '../config.ts';

/** The OpenAPI 3.1 document of Area A, generated from the route schemas (spec 9). */
export function openApiInfo(config: Pick<Config, 'publicBaseUrl'>): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Shelf service API',
        version: '1.0.0',
        description: 'Area A (catalogue) of Shelf. Every response carries X-Request-Id and Cache-Control; failures use the error envelope.',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key of your team' } },
      },
    },
    // only the public API goes into the document; health, metrics, docs and GraphQL stay out
    hideUntagged: true,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  };
}
