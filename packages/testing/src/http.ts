import { Agent, request } from 'undici';

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the wire's JSON, of any shape: tests read into it and their assertions check it
  json: any;
  /** The session cookie this response set, as "name=value". */
  cookie?: string;
  /** Set when the connection failed or broke (status is 0 then): the error's code. */
  error?: string;
}

export interface Client {
  send(
    method: string,
    path: string,
    opts?: { host?: string; headers?: Record<string, string | string[]>; body?: string | Buffer },
  ): Promise<Response>;
  /** POSTs a form body built from fields (or sent as given). */
  form(
    path: string,
    fields: Record<string, string> | string,
    opts?: { host?: string; headers?: Record<string, string> },
  ): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The one HTTP client of the tests: a server on 127.0.0.1:`port`, addressed by any Host (a
 * realm), over its own connection pool. A connection that fails or breaks gives status 0 with
 * the error's code, so tests that stop servers can count such answers.
 */
export function httpClient(port: number, opts: { formHeaders?: Record<string, string> } = {}): Client {
  const agent = new Agent({ connections: 128, connect: { timeout: 5000 } });
  const send: Client['send'] = async (method, path, o = {}) => {
    try {
      const res = await request(`http://127.0.0.1:${port}${path}`, {
        method: method as 'GET',
        headers: { host: `${o.host ?? 'localhost'}:${port}`, ...o.headers },
        body: o.body,
        dispatcher: agent,
        // A first request to a just-started server (its estimator and hashing threads starting)
        // can take long on a loaded machine; a hang is still caught by the test's own timeout.
        headersTimeout: 120_000,
        bodyTimeout: 120_000,
      });
      const text = await res.body.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        // Not JSON: `json` stays undefined and the test reads `text`.
      }
      const cookie = [res.headers['set-cookie'] ?? []]
        .flat()
        .map((c) => c.split(';')[0]!)
        .find((c) => /^(__Host-)?session=./.test(c));
      return { status: res.statusCode, headers: res.headers, text, json, cookie };
    } catch (err) {
      const e = err as { code?: string; cause?: { code?: string } };
      return { status: 0, headers: {}, text: '', json: undefined, error: e.code ?? e.cause?.code ?? String(err) };
    }
  };
  return {
    send,
    form: (path, fields, o = {}) =>
      send('POST', path, {
        host: o.host,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...opts.formHeaders, ...o.headers },
        body: typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(),
      }),
    close: () => agent.close(),
  };
}
