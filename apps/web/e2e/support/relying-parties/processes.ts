import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appAddresses, type RelyingParty } from './contract';

// The two apps that are not Node: Authlib (python3-authlib) and Apache with mod_auth_openidc,
// both from Debian's packages (.ci/run installs them), started as their own processes.

export const PYTHON = '/usr/bin/python3';
export const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';
const AUTHLIB_RP = fileURLToPath(new URL('./authlib_rp.py', import.meta.url));

/** What of the two is missing here (empty when both can run). */
export function missingRelyingParties(): string[] {
  const missing: string[] = [];
  if (!existsSync(APACHE) || !existsSync(join(MODULES, 'mod_auth_openidc.so')))
    missing.push('apache2 libapache2-mod-auth-openidc');
  if (!existsSync(PYTHON)) missing.push('python3');
  else if (spawnSync(PYTHON, ['-c', 'import authlib, requests'], { stdio: 'ignore' }).status !== 0)
    missing.push('python3-authlib python3-requests');
  return missing;
}

/** Waits until the process prints `ready` (or its port answers), or fails with what it wrote. */
async function started(child: ChildProcess, ready: () => Promise<boolean>, log: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${log()}`);
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`did not start within 20 s:\n${log()}`);
}

const answers = (url: string) => () =>
  fetch(url).then(
    () => true,
    () => false,
  );

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  return exited.finally(() => clearTimeout(timer));
}

function collect(child: ChildProcess) {
  const out: string[] = [];
  child.stdout?.on('data', (c) => out.push(String(c)));
  child.stderr?.on('data', (c) => out.push(String(c)));
  return () => out.join('');
}

export async function startAuthlibRp(options: {
  port: number;
  issuer: string;
  clientId: string;
  clientSecret: string;
}): Promise<RelyingParty> {
  const { origin } = appAddresses('script', options.port);
  // The secret goes in the environment, not on a command line any process can read.
  const child = spawn(PYTHON, [AUTHLIB_RP], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      RP_PORT: String(options.port),
      RP_ISSUER: options.issuer,
      RP_CLIENT_ID: options.clientId,
      RP_CLIENT_SECRET: options.clientSecret,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = collect(child);
  await started(child, answers(`${origin}/state`), log);
  return { name: 'Authlib', origin, loginUrl: `${origin}/login`, port: options.port, log, close: () => stop(child) };
}

/**
 * Apache httpd with mod_auth_openidc protecting /protected/, configured as docs/oidc.md shows,
 * plus the info hook (the session's tokens and claims as JSON) that lets the test see what the
 * module validated and holds.
 */
export async function startApacheRp(options: {
  port: number;
  issuer: string;
  clientId: string;
  clientSecret: string;
}): Promise<RelyingParty> {
  const { origin, redirectUri } = appAddresses('apache', options.port);
  const dir = mkdtempSync(join(tmpdir(), 'accounts-apache-rp-'));
  mkdirSync(join(dir, 'www', 'protected'), { recursive: true });
  writeFileSync(join(dir, 'www', 'protected', 'index.html'), '<h1>Signed in to the Apache app</h1>\n');
  // Run as root (as CI is), httpd's children drop to www-data, which must read the document root.
  chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0;
  const conf = [
    `ServerRoot "${dir}"`,
    `ServerName 127.0.0.1:${options.port}`,
    `Listen 127.0.0.1:${options.port}`,
    `PidFile "${dir}/httpd.pid"`,
    `DefaultRuntimeDir "${dir}"`,
    `ErrorLog "${dir}/error.log"`,
    'LogLevel warn auth_openidc:info',
    ...['mpm_event', 'authn_core', 'authz_core', 'authz_user', 'mime', 'dir', 'headers', 'auth_openidc'].map(
      (m) => `LoadModule ${m}_module ${MODULES}/mod_${m}.so`,
    ),
    ...(asRoot ? ['User www-data', 'Group www-data'] : []),
    'TypesConfig /etc/mime.types',
    'DirectoryIndex index.html',
    `DocumentRoot "${dir}/www"`,
    `OIDCProviderMetadataURL ${options.issuer}/.well-known/openid-configuration`,
    `OIDCClientID ${options.clientId}`,
    `OIDCClientSecret ${options.clientSecret}`,
    `OIDCRedirectURI ${redirectUri}`,
    `OIDCCryptoPassphrase ${randomBytes(32).toString('hex')}`,
    'OIDCPKCEMethod S256',
    'OIDCScope "openid profile email offline_access"',
    'OIDCAuthRequestParams prompt=consent',
    'OIDCInfoHook iat access_token id_token userinfo refresh_token',
    `OIDCRedirectURLsAllowed ^${origin.replace(/[.]/g, '\\.')}/`,
    '<Location /protected>',
    '  AuthType openid-connect',
    '  Require valid-user',
    // A signed-in page is never kept by the browser: after a logout it must ask again.
    '  Header always set Cache-Control "no-store"',
    '</Location>',
  ].join('\n');
  writeFileSync(join(dir, 'httpd.conf'), `${conf}\n`, { mode: 0o600 });
  const child = spawn(APACHE, ['-f', join(dir, 'httpd.conf'), '-DFOREGROUND'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child);
  const log = () => {
    const file = join(dir, 'error.log');
    return output() + (existsSync(file) ? readFileSync(file, 'utf8') : '');
  };
  await started(child, answers(`${origin}/`), log);
  return {
    name: 'mod_auth_openidc',
    origin,
    loginUrl: `${origin}/protected/`,
    port: options.port,
    log,
    async close() {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
