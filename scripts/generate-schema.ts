import { writeFile } from 'node:fs/promises';
import { renderedSchemas } from './schema-files.ts';

/** Regenerates schema/schema.graphql and schema/openapi.json from the code (`npm run schema:generate`). */
const files = await renderedSchemas();
for (const [path, content] of Object.entries(files)) {
  await writeFile(new URL(`../${path}`, import.meta.url), content);
  console.log(`wrote ${path}`);
}
