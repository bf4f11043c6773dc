// ESLint over the whole tree, with TypeScript's type information (each file is checked in the
// program of the tsconfig.json that includes it).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { importRules } from './packages/api/import-rules.js';

/**
 * Files that may read `process.env`. Everywhere else a setting arrives through the module that
 * owns the configuration (apps/gateway/src/config.ts), so each variable is parsed, checked and
 * documented once.
 */
const ENVIRONMENT_READERS = [
  // The owners of configuration: the gateway's settings and the web app's build settings.
  'apps/gateway/src/config.ts',
  'apps/web/vite.config.ts',
  // Tests set up the processes and databases they run against (TEST_DATABASE_URL, a child's env).
  '**/test/**',
  'apps/web/e2e/**',
  '**/vitest*.config.ts',
  'vitest.shared.ts',
  'packages/db/src/testing.ts',
  // The benchmark is a set of separate programs, each taking its knobs (BENCH_*) and handing an
  // environment to the servers it launches; none of it ships.
  'packages/bench/**',
  // The test runner reads CI's variables and passes the environment to turbo.
  'scripts/**',
  // Hands its own environment to the child process it spawns; reads no setting.
  'packages/db/src/pglite-setup.ts',
];

/**
 * The rules that refuse values typed `any`, off where `any` is expected (see each use below).
 * @type {import('eslint').Linter.RulesRecord}
 */
const ANY_ALLOWED = {
  '@typescript-eslint/no-unsafe-argument': 'off',
  '@typescript-eslint/no-unsafe-assignment': 'off',
  '@typescript-eslint/no-unsafe-call': 'off',
  '@typescript-eslint/no-unsafe-member-access': 'off',
  '@typescript-eslint/no-unsafe-return': 'off',
};

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/dist-server/**',
      '**/test-results/**',
      '**/.turbo/**',
      'packages/bench/results/**',
      'packages/db/migrations/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        // Files no package's tsconfig.json includes are checked with the root one's settings.
        projectService: {
          allowDefaultProject: [
            'packages/{api,db,validators}/vitest.config.ts',
            'packages/{api,validators}/scripts/*.ts',
          ],
          defaultProject: 'tsconfig.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message:
            'Read settings in apps/gateway/src/config.ts and pass them in (see ENVIRONMENT_READERS in eslint.config.js).',
        },
      ],
    },
  },
  {
    files: ['apps/web/src/**/*.tsx', 'apps/web/src/**/*.ts'],
    languageOptions: { globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    // In JavaScript, types come from JSDoc: the checker honours a cast `/** @type {T} */ (x)` but
    // these rules see the uncast `x` and would call it `any`.
    files: ['**/*.js', '**/*.mjs'],
    rules: ANY_ALLOWED,
  },
  {
    // Tests read answers as the wire gives them (JSON of any shape) and assert on them; each
    // answer's shape is what the assertions (and the OpenAPI validation) check, not the types.
    files: ['**/test/**', '**/*.test.ts', '**/*.test.tsx', 'apps/web/e2e/**', 'packages/testing/**'],
    rules: ANY_ALLOWED,
  },
  {
    files: ENVIRONMENT_READERS,
    rules: { 'no-restricted-properties': 'off' },
  },
  // packages/api/src's layers: imports point down only, capabilities never import each other.
  ...importRules(),
);
