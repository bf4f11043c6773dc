import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { Gateway, Response } from './gateway.js';

type Operation = { responses: Record<string, { headers?: Record<string, unknown>; content: Record<string, { schema: object }> }> };
export type OpenApiDocument = { openapi: string; paths: Record<string, Record<string, Operation>> };

/**
 * Fetches the running server's /openapi.json, checks it against the OpenAPI 3.1 schema, and
 * returns a check that a real answer is what the document says for that route and status.
 */
export async function openApiOf(gw: Gateway) {
  const res = await gw.send('GET', '/openapi.json');
  expect(res.status).toBe(200);
  const doc = res.json as OpenApiDocument;
  const verdict = await new Validator().validate(structuredClone(doc));
  expect(verdict.errors ?? [], 'the document is valid OpenAPI 3.1').toEqual([]);
  expect(verdict.valid).toBe(true);

  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const statuses = new Map<string, Set<number>>();

  /** Asserts that `res`, answered by `method url`, has a documented status, media type, headers and body. */
  function check(method: string, url: string, res: Response) {
    const what = `${method} ${url} → ${res.status} ${res.text.slice(0, 200)}`;
    const op = doc.paths[url]?.[method.toLowerCase()];
    expect(op, `${method} ${url} is documented`).toBeDefined();
    const documented = op!.responses[String(res.status)];
    expect(documented, `${what}: status documented`).toBeDefined();
    const [type, media] = Object.entries(documented!.content)[0]!;
    expect(String(res.headers['content-type']).split(';')[0], what).toBe(type);
    for (const header of Object.keys(documented!.headers ?? {})) {
      if (header === 'Retry-After') expect(res.headers['retry-after'], `${what}: Retry-After`).toMatch(/^\d+$/);
    }
    const key = `${method} ${url} ${res.status}`;
    if (!compiled.has(key)) compiled.set(key, ajv.compile(media.schema));
    const validate = compiled.get(key)!;
    expect(validate(res.json), `${what}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    statuses.set(`${method} ${url}`, (statuses.get(`${method} ${url}`) ?? new Set()).add(res.status));
  }

  /** The documented statuses of each operation that no answer has been checked against yet. */
  function unchecked(except: Record<string, number[]> = {}) {
    const missing: string[] = [];
    for (const [url, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method.toUpperCase()} ${url}`;
        for (const status of Object.keys(op.responses).map(Number)) {
          if (!statuses.get(key)?.has(status) && !(except[key] ?? []).includes(status)) missing.push(`${key} ${status}`);
        }
      }
    }
    return missing;
  }

  return { doc, check, unchecked };
}
