import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { areaOf, type OpenApiDocument, type Operation } from './operations.ts';
import type { WireResponse } from './raw-http.ts';

/**
 * Judges one answer: no 5xx and no missing answer, an X-Request-Id, the envelope of the path's
 * area (/v1: success, code, message, requestId; /open and /approval: code, message, result,
 * traceId; the id equal to the header's) and, when the operation documents the status, a body
 * valid against the documented response schema (ajv on the served OpenAPI document).
 */
export interface Problem {
  /** Stable across cases: failures are grouped by it. */
  kind:
    | 'server-error'
    | 'no-answer'
    | 'no-request-id'
    | 'not-json'
    | 'envelope'
    | 'undocumented-status'
    | 'schema'
    | 'content-type'
    | 'graphql-shape'
    | 'graphql-no-code';
  message: string;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export class AnswerChecker {
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    // strict off: the document carries OpenAPI keywords (example, description on $ref siblings)
    this.#ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.#ajv);
    this.#ajv.addFormat('binary', true);
    this.#ajv.addSchema(doc as object, 'openapi.json');
  }

  /** The problems of an answer to a request for `path` (documented operation `op`, when the method and route are the documented ones). */
  check(path: string, op: Operation | null, answer: WireResponse): Problem[] {
    if (answer.status === 0) return [{ kind: 'no-answer', message: answer.error ?? 'no answer' }];
    const problems: Problem[] = [];
    if (answer.status >= 500) problems.push({ kind: 'server-error', message: `status ${answer.status}` });
    const requestId = answer.headers['x-request-id'];
    if (!requestId) problems.push({ kind: 'no-request-id', message: 'no X-Request-Id header' });
    const area = areaOf(path);
    const contentType = answer.headers['content-type'] ?? '';
    const documented = op?.responses[String(answer.status)];
    if (documented && documented.length > 0 && !documented.some((t) => contentType.startsWith(t))) {
      problems.push({ kind: 'content-type', message: `Content-Type ${contentType || '(none)'}, documented ${documented.join(', ')}` });
    }
    if (documented && !documented.includes('application/json') && documented.length > 0) return problems;
    // 204 has no body by definition (an OPTIONS preflight of an upload path answers it to any route there)
    if (answer.status === 204 && answer.body.length === 0) return problems;
    let body: unknown;
    try {
      body = JSON.parse(answer.body.toString('utf8'));
    } catch {
      problems.push({ kind: 'not-json', message: `body is not JSON: ${JSON.stringify(answer.body.toString('utf8').slice(0, 80))}` });
      return problems;
    }
    if (area === 'v1' || area === 'open' || area === 'approval') problems.push(...envelopeProblems(area, body, answer.status, requestId));
    if (op && !documented) problems.push({ kind: 'undocumented-status', message: `status ${answer.status} is not documented for ${op.id}` });
    if (op && documented) problems.push(...this.#schemaProblems(op, String(answer.status), body));
    return problems;
  }

  #schemaProblems(op: Operation, status: string, body: unknown): Problem[] {
    const ref = `openapi.json#/${pointer('paths', op.path, op.method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema')}`;
    let validate = this.#validators.get(ref);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: ref });
      this.#validators.set(ref, validate);
    }
    if (validate(body)) return [];
    const first = validate.errors?.[0];
    return [{ kind: 'schema', message: `off the ${status} schema of ${op.id}: ${first?.instancePath || '(root)'} ${first?.message ?? ''}`.trim() }];
  }
}

function envelopeProblems(area: 'v1' | 'open' | 'approval', body: unknown, status: number, requestId: string | undefined): Problem[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [{ kind: 'envelope', message: `the ${area} envelope is not an object` }];
  const b = body as Record<string, unknown>;
  const missing: string[] = [];
  if (area === 'v1') {
    if (typeof b.success !== 'boolean') missing.push('success');
    if (!('code' in b) || (b.code !== null && typeof b.code !== 'string')) missing.push('code');
    if (!('message' in b) || (b.message !== null && typeof b.message !== 'string')) missing.push('message');
    if (typeof b.requestId !== 'string') missing.push('requestId');
    if (status >= 400 && (b.success !== false || typeof b.code !== 'string')) missing.push('success false with a code');
  } else {
    if (typeof b.code !== 'string') missing.push('code');
    if (typeof b.message !== 'string') missing.push('message');
    if (!('result' in b)) missing.push('result');
    if (typeof b.traceId !== 'string') missing.push('traceId');
    if (status >= 400 && (b.result !== null || b.code === '0')) missing.push('result null and a failure code');
  }
  const id = area === 'v1' ? b.requestId : b.traceId;
  if (requestId && typeof id === 'string' && id !== requestId) missing.push(`${area === 'v1' ? 'requestId' : 'traceId'} equal to X-Request-Id`);
  return missing.length > 0 ? [{ kind: 'envelope', message: `off the ${area} envelope: ${missing.join(', ')}` }] : [];
}
