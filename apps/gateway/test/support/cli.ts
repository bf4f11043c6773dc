import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLI = new URL('../../dist/cli.js', import.meta.url).pathname;

export interface CliResult {
  /** The exit code: 0 on success. */
  code: number;
  out: string;
  err: string;
}

/**
 * Runs the operator command (`dist/cli.js`, the build: test/support/fresh-build.ts) with `args` and our environment plus
 * `env`, and resolves with how it ended, a failure included (a test reads its code and stderr).
 */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  try {
    const r = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      timeout: 120_000,
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}
