import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

export interface CliResult {
  /** The exit code: 0 on success. */
  code: number;
  out: string;
  err: string;
}

/**
 * Runs the operator command (`src/cli.ts`, from source) with `args` and our environment plus
 * `env`, and resolves with how it ended, a failure included (a test reads its code and stderr).
 */
export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, ...env },
      timeout: 120_000,
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}
