import type { TSchema } from 'typebox';

type Described = TSchema & { description?: string; anyOf?: Described[]; properties?: Record<string, Described> };

/**
 * Descriptions taken from the core's request and response schemas (the same ones behind the REST
 * routes and the OpenAPI document), so GraphQL says what REST says. A property wrapped as optional
 * or nullable gives the description of the schema inside. Throws at start-up for a property the
 * schema does not describe, so a description cannot silently go missing.
 */
export function describedBy(schema: TSchema) {
  const properties = (schema as Described).properties ?? {};
  return (name: string): { description: string } => {
    const property = properties[name];
    const description = property?.description ?? property?.anyOf?.find((s) => s.description)?.description;
    if (!description) throw new Error(`the core schema gives ${name} no description`);
    return { description };
  };
}
