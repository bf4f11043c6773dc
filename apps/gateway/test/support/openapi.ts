import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { Gateway, Response } from './gateway.js';

type Operation = {
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: object }> }>;
};
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
  // A concrete path (/users/oauth/upstream/start) is held to its template (/users/oauth/{provider}/start).
  const templates = Object.keys(doc.paths)
    .filter((path) => path.includes('{'))
    .map((path) => ({ path, pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`) }));
  const templateOf = (url: string) =>
    doc.paths[url] ? url : (templates.find((t) => t.pattern.test(url))?.path ?? url);

  /** Asserts that `res`, answered by `method url`, has a documented status, media type, headers and body. */
  function check(method: string, concrete: string, res: Response) {
    const url = templateOf(concrete);
    const what = `${method} ${url} → ${res.status} ${res.text.slice(0, 200)}`;
    const op = doc.paths[url]?.[method.toLowerCase()];
    expect(op, `${method} ${url} is documented`).toBeDefined();
    const documented = op!.responses[String(res.status)];
    expect(documented, `${what}: status documented`).toBeDefined();
    const seen = () =>
      statuses.set(`${method} ${url}`, (statuses.get(`${method} ${url}`) ?? new Set()).add(res.status));
    // A redirect has no body: its Location is what it says.
    if (!documented!.content) {
      expect(documented!.headers?.Location, `${what}: a body-less answer is a redirect`).toBeDefined();
      expect(res.headers.location, `${what}: Location`).toMatch(/^(\/|https?:\/\/)/);
      return seen();
    }
    const [type, media] = Object.entries(documented!.content)[0]!;
    expect(String(res.headers['content-type']).split(';')[0], what).toBe(type);
    for (const header of Object.keys(documented!.headers ?? {})) {
      if (header === 'Retry-After') expect(res.headers['retry-after'], `${what}: Retry-After`).toMatch(/^\d+$/);
      if (header === 'Content-Disposition')
        expect(res.headers['content-disposition'], `${what}: Content-Disposition`).toMatch(
          /^attachment; filename="[^"]+"$/,
        );
    }
    const key = `${method} ${url} ${res.status}`;
    if (!compiled.has(key)) compiled.set(key, ajv.compile(media.schema));
    const validate = compiled.get(key)!;
    expect(validate(res.json), `${what}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    seen();
  }

  /** The documented statuses of each operation that no answer has been checked against yet. */
  function unchecked(except: Record<string, number[]> = {}) {
    const missing: string[] = [];
    for (const [url, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method.toUpperCase()} ${url}`;
        for (const status of Object.keys(op.responses).map(Number)) {
          if (!statuses.get(key)?.has(status) && !(except[key] ?? []).includes(status))
            missing.push(`${key} ${status}`);
        }
      }
    }
    return missing;
  }

  return { doc, check, unchecked };
}

/** The OpenAPI test's checked request functions: each answer is held to the document. */
export type Post = (
  url: string,
  body: string | Record<string, string>,
  headers?: Record<string, string>,
  host?: string,
) => Promise<Response>;
export type Get = (url: string, headers?: Record<string, string>, host?: string) => Promise<Response>;

/**
 * The refusals every form route shares, asked of each route with a valid form of its fields:
 * a body that is not UTF-8, a cross-site origin, an unknown realm, an oversized body, another
 * media type and a repeated field. `signedIn` routes are also refused without the session and
 * with their first field empty.
 */
export async function expectPostRefusals(
  post: Post,
  bodies: Record<string, Record<string, string>>,
  { cookie, signedIn = false }: { cookie: string; signedIn?: boolean },
) {
  for (const [url, fields] of Object.entries(bodies)) {
    const form = new URLSearchParams(fields).toString();
    expect((await post(url, `${form}&x=%FF`, { cookie })).json.code).toBe('invalid_body');
    expect(
      (await post(url, form, { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).json.code,
    ).toBe('cross_origin');
    expect((await post(url, form, { cookie }, 'nope.localhost')).json.code).toBe('realm_not_found');
    expect((await post(url, `${form}&pad=${'x'.repeat(20 * 1024)}`, { cookie })).json.code).toBe('payload_too_large');
    expect((await post(url, form || 'x=1', { cookie, 'content-type': 'text/plain' })).json.code).toBe(
      'unsupported_media_type',
    );
    if (signedIn) expect((await post(url, form)).json.code).toBe('unauthenticated');
    const first = Object.keys(fields)[0];
    if (!first) continue;
    expect((await post(url, `${form}&${first}=again`, { cookie })).json.code).toBe('duplicate_field');
    if (signedIn) expect((await post(url, { [first]: '' }, { cookie })).json.code).toBe('validation_failed');
  }
}

/** The OpenAPI test's checked JSON POST (the passkey routes): a value, or raw text as given. */
export type PostJson = (
  url: string,
  body: unknown,
  headers?: Record<string, string>,
  host?: string,
) => Promise<Response>;

/**
 * The refusals every JSON route shares, asked of each route with a valid body: a body that is
 * not JSON, a cross-site origin, an unknown realm, an oversized body and a form body. `signedIn`
 * routes are also refused without the session and with their first field of the wrong type.
 */
export async function expectJsonPostRefusals(
  post: PostJson,
  bodies: Record<string, Record<string, unknown>>,
  { cookie, signedIn = false }: { cookie: string; signedIn?: boolean },
) {
  for (const [url, fields] of Object.entries(bodies)) {
    expect((await post(url, '{"oops":', { cookie })).json.code, url).toBe('invalid_body');
    expect(
      (await post(url, fields, { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).json.code,
    ).toBe('cross_origin');
    expect((await post(url, fields, { cookie }, 'nope.localhost')).json.code).toBe('realm_not_found');
    expect((await post(url, { ...fields, pad: 'x'.repeat(20 * 1024) }, { cookie })).json.code).toBe(
      'payload_too_large',
    );
    expect(
      (
        await post(url, new URLSearchParams({ x: '1' }).toString(), {
          cookie,
          'content-type': 'application/x-www-form-urlencoded',
        })
      ).json.code,
    ).toBe('unsupported_media_type_json');
    if (signedIn) expect((await post(url, fields)).json.code).toBe('unauthenticated');
    const first = Object.keys(fields)[0];
    if (signedIn && first)
      expect((await post(url, { ...fields, [first]: 42 }, { cookie })).json.code).toBe('validation_failed');
  }
}
