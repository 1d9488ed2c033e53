import { readFileSync } from 'node:fs';

/**
 * Shelf's release version: package.json's `version`, the one place it is written (docs/releases.md).
 * `/healthz`, the OpenAPI document's `info.version`, the X-Shelf-Version response header and
 * `shelf --version` all report this value.
 */
export const SHELF_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The response header that carries SHELF_VERSION on every HTTP response. */
export const VERSION_HEADER = 'X-Shelf-Version';
