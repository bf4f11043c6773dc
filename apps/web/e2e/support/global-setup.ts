import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startGateway } from './gateway-process';
import { CHROMIUM_PATH, GATEWAY_MAIN, WEB_DIST_INDEX, WEB_SRC_DIR } from './paths';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the gateway listens, or null when the run is skipped for want of Chromium. */
    port: number | null;
  }
}

function loud(lines: string[]) {
  const bar = '!'.repeat(78);
  console.warn(`\n${bar}\n${lines.map((l) => `!!  ${l}`).join('\n')}\n${bar}\n`);
}

/** The newest change to the app's own source, test files aside. */
function newestMtime(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.name !== 'test' && !/\.test\.tsx?$/.test(entry.name))
      .map((entry) => {
        const path = join(dir, entry.name);
        return entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
      }),
  );
}

export default async function setup(project: TestProject) {
  if (!existsSync(CHROMIUM_PATH)) {
    const notice = [
      `END-TO-END TESTS SKIPPED: no Chromium at ${CHROMIUM_PATH}.`,
      'Install it with:  apt-get install -y chromium',
      'or point CHROMIUM_PATH at a Chromium or Chrome binary.',
    ];
    // In CI a run without the browser tests must not pass: .ci/run installs Chromium.
    if (process.env.CI) throw new Error(notice.join('\n').replace('TESTS SKIPPED', 'TESTS CANNOT RUN'));
    loud(notice);
    project.provide('port', null);
    // Said again at the end, where it is not scrolled away by the test output.
    return () => loud(notice);
  }
  if (!existsSync(GATEWAY_MAIN) || !existsSync(WEB_DIST_INDEX)) {
    throw new Error(
      'The end-to-end tests need the built web app and gateway. Build both with:\n' +
        '  pnpm turbo run build --filter=@accounts/gateway...',
    );
  }
  if (newestMtime(WEB_SRC_DIR) > statSync(WEB_DIST_INDEX).mtimeMs) {
    loud([
      'apps/web/dist is older than apps/web/src: these tests run the OLD build.',
      'Rebuild with: pnpm --filter @accounts/web build',
    ]);
  }

  const gateway = await startGateway();
  project.provide('port', gateway.port);
  return () => gateway.stop();
}
