// Shared by every package's vitest config: when TEST_REPORT_DIR is set (the root `npm test`),
// each run also writes a JSON report that scripts/run-tests.mjs adds up into one summary line.
export function reporters(name: string): (string | [string, Record<string, unknown>])[] {
  const dir = process.env.TEST_REPORT_DIR;
  return dir ? ['default', ['json', { outputFile: `${dir}/${name}.json` }]] : ['default'];
}
