import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

// A small stand-in for Google's, Microsoft's and GitHub's sign-in endpoints on loopback, for the
// provider kinds' rules: it signs in whoever the test says (`as`), with whatever address and
// claims, as a hostile upstream would. OpenID Connect issuers live under a path of their own
// (`/google`, `/tenant-a/v2.0`), each with its discovery document and one signing key; GitHub's
// OAuth endpoints and API are at the root (`/login/oauth/…`, `/api/v3/…`).

export interface FakePerson {
  /** The ID token's claims beyond iss, aud, nonce and the times (sub, email, oid, xms_edov…). */
  claims?: Record<string, unknown>;
  /** GitHub's /user and /user/emails. */
  github?: { id: number; name: string; emails: { email: string; primary: boolean; verified: boolean }[] };
  /** Sign the ID token with a key the discovery document does not list. */
  foreignKey?: boolean;
  /** Apple's `user` field (the name, on the first authorization), posted beside the code. */
  user?: string;
}

/** A form_post answer (Apple's): what the provider's page would post to the callback. */
export interface FormPost {
  action: string;
  fields: Record<string, string>;
}

export interface FakeUpstream {
  origin: string;
  /** Who the next authorization signs in. */
  as(person: FakePerson): void;
  /** The client credentials the last token request came with (client_secret_post). */
  lastClientSecret(): string | null;
  close(): Promise<void>;
}

const body = async (req: IncomingMessage) => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return new URLSearchParams(text);
};

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const ours = await generateKeyPair('RS256', { extractable: true });
  const foreign = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(ours.publicKey)), kid: 'fake-1', alg: 'RS256', use: 'sig' };
  let next: FakePerson = {};
  const codes = new Map<string, { person: FakePerson; nonce: string | null; clientId: string; issuer: string }>();
  let origin = '';
  let clientSecret: string | null = null;

  const idToken = (issuer: string, grant: { person: FakePerson; nonce: string | null; clientId: string }) => {
    const key: CryptoKey = grant.person.foreignKey ? foreign.privateKey : ours.privateKey;
    return new SignJWT({ ...(grant.nonce ? { nonce: grant.nonce } : {}), ...grant.person.claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'fake-1' })
      .setIssuer(issuer)
      .setAudience(grant.clientId)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      };
      const issuerPath = url.pathname.replace(/\/(\.well-known\/openid-configuration|authorize|token)$/, '');
      const issuer = `${origin}${issuerPath}`;
      if (url.pathname.endsWith('/.well-known/openid-configuration'))
        return send(200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${origin}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
        });
      if (url.pathname === '/jwks') return send(200, { keys: [jwk] });
      if (url.pathname.endsWith('/authorize')) {
        const code = randomUUID();
        codes.set(code, {
          person: next,
          nonce: url.searchParams.get('nonce'),
          clientId: url.searchParams.get('client_id') ?? '',
          issuer: url.pathname.startsWith('/login/oauth') ? origin : issuer,
        });
        const answer = {
          code,
          state: url.searchParams.get('state') ?? '',
          ...(next.user ? { user: next.user } : {}),
        };
        // Apple's page posts the answer back instead: to a browser, a page whose form does it (by
        // itself with scripts, by its button without); to a test, what it would post.
        if (url.searchParams.get('response_mode') === 'form_post') {
          const action = url.searchParams.get('redirect_uri')!;
          if (!String(req.headers.accept).includes('text/html'))
            return send(200, { action, fields: answer } satisfies FormPost);
          const inputs = Object.entries(answer)
            .map(
              ([k, v]) =>
                `<input type="hidden" name="${k}" value="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`,
            )
            .join('');
          res
            .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
            .end(
              `<!doctype html><title>Apple</title><form method="post" action="${action}">${inputs}<button>Continue</button></form><script>document.forms[0].submit()</script>`,
            );
          return;
        }
        const back = new URL(url.searchParams.get('redirect_uri')!);
        for (const [k, v] of Object.entries(answer)) back.searchParams.set(k, v);
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (req.method === 'POST' && (url.pathname.endsWith('/token') || url.pathname === '/login/oauth/access_token')) {
        const form = await body(req);
        clientSecret = form.get('client_secret');
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (!grant) return send(400, { error: 'invalid_grant' });
        const accessToken = `at-${randomUUID()}`;
        codes.set(accessToken, grant);
        const github = url.pathname === '/login/oauth/access_token';
        return send(200, {
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: 300,
          ...(github ? { scope: 'read:user,user:email' } : { id_token: await idToken(grant.issuer, grant) }),
        });
      }
      const bearer = codes.get((req.headers.authorization ?? '').replace(/^Bearer /i, ''));
      if (url.pathname === '/api/v3/user' && bearer?.person.github)
        return send(200, { id: bearer.person.github.id, login: 'octo', name: bearer.person.github.name });
      if (url.pathname === '/api/v3/user/emails' && bearer?.person.github)
        return send(200, bearer.person.github.emails);
      send(404, { error: 'not_found' });
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    as: (person) => {
      next = person;
    },
    lastClientSecret: () => clientSecret,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
