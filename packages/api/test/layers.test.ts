import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import { parser } from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { importRules, LAYERS } from '../import-rules.js';

// The layers of src/ (import-rules.js), as `npm run lint` enforces them: each kind of break is
// refused, and the tree as it stands breaks none.

const root = join(import.meta.dirname, '../../..');
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  allowInlineConfig: false,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser } }, ...importRules()],
});

async function refusals(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, 'packages/api/src', file) });
  return result!.messages.map((m) => m.message);
}

describe('the import rules of packages/api/src', () => {
  it.each([
    ['a credential mails', 'credentials/lockout.ts', "import { queueNewSignIn } from '../mail/notices.js';"],
    ['a credential starts a session', 'credentials/totp.ts', "import { createSession } from '../records/sessions.js';"],
    ['a credential reaches up into sign-in', 'credentials/factors.ts', "import { signIn } from '../sign-in/flow.js';"],
    ['a record reaches up', 'records/users.ts', "import { claimCheck } from '../credentials/lockout.js';"],
    ['the kernel reaches up', 'kernel/errors.ts', "import type { Procedures } from '../procedures.js';"],
    ['a capability imports a sibling', 'sessions/procedures.ts', "import { x } from '../passwords/replace.js';"],
    [
      'a capability reaches into a sign-in method',
      'passkeys/procedures.ts',
      "import { passkeyMethod } from '../sign-in/passkey.js';",
    ],
    [
      'a sign-in method starts its own session',
      'sign-in/password.ts',
      "import { createSession } from '../records/sessions.js';",
    ],
    [
      'a capability starts a session',
      'account/procedures.ts',
      "import { createSession } from '../records/sessions.js';",
    ],
    ['the procedure builders import a capability', 'procedures.ts', "import { x } from './sign-in/flow.js';"],
  ])('refuses: %s', async (_, file, code) => {
    expect(await refusals(file, code)).toEqual([expect.stringContaining('packages/api/import-rules.js')]);
  });

  it.each([
    ['the flow starts sessions', 'sign-in/flow.ts', "import { createSession } from '../records/sessions.js';"],
    ['a capability hands over a session', 'passwords/procedures.ts', "import { handOver } from '../sign-in/flow.js';"],
    [
      'a capability uses credentials and mail',
      'two-step/procedures.ts',
      "import { a } from '../credentials/totp.js';\nimport { b } from '../mail/notices.js';",
    ],
    ['a record reads the kernel', 'records/users.ts', "import { ago } from '../kernel/db-time.js';"],
    ['the router assembles capabilities', 'router.ts', "import { x } from './passwords/procedures.js';"],
  ])('allows: %s', async (_, file, code) => {
    expect(await refusals(file, code)).toEqual([]);
  });

  it('every file of src belongs to a layer, and the tree breaks no rule', async () => {
    const src = join(import.meta.dirname, '../src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|js)$/.test(f));
    const unplaced = files.filter(
      (f) => !(f.split('/')[0]! in LAYERS) && !['router.ts', 'index.ts', 'testing.ts'].includes(f),
    );
    expect(unplaced).toEqual([]);
    const results = await eslint.lintFiles(files.filter((f) => f.endsWith('.ts')).map((f) => join(src, f)));
    const broken = results.flatMap((r) => r.messages.map((m) => `${relative(src, r.filePath)}: ${m.message}`));
    expect(broken).toEqual([]);
  });
});
