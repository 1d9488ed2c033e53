import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from '../config.ts';
import { SHELF_VERSION, VERSION_HEADER } from '../version.ts';

/** The OpenAPI 3.1 document of Area A and the open API, generated from the route schemas (spec 9). */
export function openApiInfo(config: Pick<Config, 'publicBaseUrl'>): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Shelf service API',
        version: SHELF_VERSION,
        description: `Area A (catalogue, /v1), the open API (/open: asset search and event subscriptions) and the approval endpoint (/approval) of Shelf. Every response carries X-Request-Id, Cache-Control and ${VERSION_HEADER} (the release, as in info.version; see the changelog and deprecation policy in docs/releases.md). Failures use the error envelope of their area: ErrorEnvelope under /v1, OpenErrorEnvelope (code, message, result, traceId) under /open and /approval. GraphQL (/graphql) offers the same operations to signed-in frontends.`,
        contact: { name: 'Shelf engineering', email: 'shelf-engineering@example.com' },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      tags: [
        { name: 'Brands', description: "Brands of the team's catalogue (spec 4.2): any role reads, manage writes." },
        { name: 'Categories', description: 'Category trees per brand (spec 4.3): at most 10 levels and 5,000 live categories per brand.' },
        { name: 'Information templates', description: 'Versioned product field definitions and their bindings (spec 4.4).' },
        { name: 'Products', description: 'Products with template values and media, ordinary lists and incremental sync (spec 4.5).' },
        { name: 'Activity records', description: 'The team-wide log of catalogue writes, for manage keys, with retention and purge.' },
        { name: 'Assets', description: 'Asset lookup: the file-path IDs that product media reference (spec 2.1).' },
        { name: 'Asset search', description: 'Searching the team library and shared links (spec 4.6, Area B); the open envelope.' },
        {
          name: 'Event subscriptions',
          description: 'Webhook subscriptions for folder and team material events (spec 4.7, Area C); deliveries are signed with Standard Webhooks.',
        },
        { name: 'Approvals', description: 'The approval endpoint (spec 4.8, Area D): templates, tasks over asset URLs, status and callback subscriptions.' },
      ],
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
