// The layers of packages/api/src and what each may import, bottom up. eslint.config.js turns them
// into `no-restricted-imports` rules (npm run lint fails on a broken one); test/layers.test.ts
// holds a deliberate violation of each kind against them.
//
//   kernel/        plumbing: the context, errors, configuration, the vault, clocks, devices
//   records/       the rows every capability reads and writes: users, events, tokens, sessions, realms
//   credentials/   what a person proves themselves with, and the limits on guessing it: they check
//                  and store, never mail and never start a session (their caller does, in its transaction)
//   mail/          the mails and their outbox, beside credentials
//   procedures.ts  the procedure builders
//   sign-in/       the one way into a session: the flow and its methods
//   capabilities   sessions/, passwords/, two-step/, passkeys/, email/, account/, operator/, oidc/,
//                  connections/: side by
//                  side, never importing each other; of sign-in/ only the flow (to hand over a
//                  session) and its outputs
//   router.ts      alone names the wire namespaces; index.ts is the package's face; testing.ts
//                  (@accounts/api/testing) what tests may do that the service does not

export const CAPABILITIES = [
  'sessions',
  'passwords',
  'two-step',
  'passkeys',
  'email',
  'account',
  'operator',
  'oidc',
  'connections',
];

/** Each layer (a folder, or a file at the root of src) and the folders and root files it may import. */
export const LAYERS = {
  kernel: ['kernel'],
  records: ['kernel', 'records'],
  credentials: ['kernel', 'records', 'credentials'],
  mail: ['kernel', 'records', 'mail'],
  'procedures.ts': ['kernel', 'records'],
  'sign-in': ['kernel', 'records', 'credentials', 'mail', 'procedures.ts', 'sign-in'],
  ...Object.fromEntries(
    CAPABILITIES.map((c) => [
      c,
      ['kernel', 'records', 'credentials', 'mail', 'procedures.ts', 'sign-in/flow', 'sign-in/outputs', c],
    ]),
  ),
};

const ROOT_FILES = ['procedures.ts', 'router.ts', 'index.ts'];
/** @param {string} s */
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A regex over an import specifier that matches imports of `target` (a folder, a folder's file, or a root file). */
/** @param {string} target */
function targetPattern(target) {
  if (ROOT_FILES.includes(target)) return `^(\\.{1,2}/)+${escape(target.replace(/\.ts$/, '.js'))}$`;
  const [folder = target, file] = target.split('/');
  return file ? `^(\\.{1,2}/)+${escape(folder)}/${escape(file)}\\.js$` : `^(\\.{1,2}/)+${escape(folder)}/`;
}

/** The one file that starts sessions (records/sessions.ts's createSession). */
const SESSION_STARTER = 'sign-in/flow.ts';
const NO_SESSION_START = {
  regex: '(^|/)sessions\\.js$',
  importNames: ['createSession'],
  message: `Only ${SESSION_STARTER} starts a session (packages/api/import-rules.js)`,
};

/** Every folder and root file a layer could import. */
const TARGETS = ['kernel', 'records', 'credentials', 'mail', 'sign-in', ...CAPABILITIES, ...ROOT_FILES];

/**
 * The ESLint config blocks of each layer.
 * @param {string} root the api's source folder, relative to the repository root
 * @returns {import('eslint').Linter.Config[]}
 */
export function importRules(root = 'packages/api/src') {
  return Object.entries(LAYERS).flatMap(([layer, may]) => {
    const folders = new Set(may.map((m) => m.replace(/\/.*/, '')));
    const patterns = TARGETS.filter((t) => !folders.has(t) && t !== layer).map((t) => ({
      regex: targetPattern(t),
      message: `${layer} may import only ${may.join(', ')} (packages/api/import-rules.js)`,
    }));
    // A layer allowed only some files of a folder (a capability, of sign-in/) is refused the rest.
    for (const folder of folders) {
      const files = may.filter((m) => m.startsWith(`${folder}/`)).map((m) => m.slice(folder.length + 1));
      if (files.length === 0) continue;
      patterns.push({
        regex: `^(\\.{1,2}/)+${escape(folder)}/(?!(${files.map(escape).join('|')})\\.js$)`,
        message: `${layer} may import only ${files.join(', ')} of ${folder}/ (packages/api/import-rules.js)`,
      });
    }
    /**
     * @param {object[]} extra
     * @returns {import('eslint').Linter.RulesRecord}
     */
    const rules = (extra) => ({ 'no-restricted-imports': ['error', { patterns: [...patterns, ...extra] }] });
    const files = layer.endsWith('.ts') ? [`${root}/${layer}`] : [`${root}/${layer}/**`];
    const starter = `${root}/${SESSION_STARTER}`;
    return [
      { files, ignores: [starter], rules: rules([NO_SESSION_START]) },
      ...(layer === 'sign-in' ? [{ files: [starter], rules: rules([]) }] : []),
    ];
  });
}
