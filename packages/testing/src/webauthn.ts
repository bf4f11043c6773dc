import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

// A software authenticator for server tests: makes WebAuthn registration and assertion answers
// (packed as the browser's JSON) with an ES256 key, "none" attestation, written from the WebAuthn
// and CTAP2 specifications with Node's crypto, independent of the library the service verifies with.
// Browser tests use Chromium's own virtual authenticator instead.

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [k: string]: Cbor };

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/** CBOR (RFC 8949) for what attestation objects and COSE keys hold. */
function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    return Buffer.concat([head(3, b.length), b]);
  }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), Buffer.from(v)]);
  if (Array.isArray(v)) return Buffer.concat([head(4, v.length), ...v.map(cbor)]);
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

const FLAGS = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 };

interface Credential {
  id: Buffer;
  key: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

export interface AuthenticatorOptions {
  /** The AAGUID it reports (default: all zero, as a software authenticator would). */
  aaguid?: string;
  /** Whether it verifies the person (PIN, biometrics): sets the UV flag. */
  userVerified?: boolean;
  /** Whether it keeps a signature counter (a synced passkey usually reports 0). */
  counts?: boolean;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];
  constructor(private readonly opts: AuthenticatorOptions = {}) {}

  private flags(extra: number) {
    return FLAGS.up | (this.opts.userVerified === false ? 0 : FLAGS.uv) | extra;
  }

  /** navigator.credentials.create(): a new credential for `options` as the page at `origin` asks. */
  create(options: CreationOptions, origin: string, { rpId = options.rp.id! } = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const id = randomBytes(32);
    const credential: Credential = { id, key: privateKey, rpId, userHandle: options.user.id, counter: 0 };
    this.credentials.push(credential);
    const aaguid = Buffer.from((this.opts.aaguid ?? '00000000-0000-0000-0000-000000000000').replace(/-/g, ''), 'hex');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flags(FLAGS.at)]),
      this.counterBytes(credential),
      aaguid,
      idLength,
      id,
      cbor(cose),
    ]);
    const clientData = { type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false };
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(Buffer.from(JSON.stringify(clientData))),
        attestationObject: b64url(cbor({ fmt: 'none', attStmt: {}, authData })),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  private counterBytes(c: Credential) {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(this.opts.counts === false ? 0 : c.counter);
    return b;
  }

  /**
   * navigator.credentials.get(): an assertion with a credential (the one `options` allows, else
   * the newest), as the page at `origin` asks. `counter` forces the counter it reports.
   */
  get(
    options: RequestOptions,
    origin: string,
    { credential, counter, rpId }: { credential?: Credential; counter?: number; rpId?: string } = {},
  ) {
    const allowed = options.allowCredentials?.map((c) => c.id);
    const c =
      credential ??
      [...this.credentials].reverse().find((x) => !allowed?.length || allowed.includes(b64url(x.id))) ??
      this.credentials.at(-1)!;
    c.counter = counter ?? c.counter + 1;
    const authData = Buffer.concat([
      sha256(rpId ?? options.rpId ?? c.rpId),
      Buffer.from([this.flags(0)]),
      this.counterBytes(c),
    ]);
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }),
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), c.key);
    return {
      id: b64url(c.id),
      rawId: b64url(c.id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: c.userHandle,
      },
      clientExtensionResults: {},
    };
  }
}
