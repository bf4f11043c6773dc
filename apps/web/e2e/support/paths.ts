import { fileURLToPath } from 'node:url';

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

export const WEB_DIR = here('../../');
export const WEB_DIST_INDEX = here('../../dist/index.html');
export const WEB_SRC_DIR = here('../../src');
export const GATEWAY_MAIN = here('../../../gateway/dist/main.js');
export const GATEWAY_CLI = here('../../../gateway/dist/cli.js');
export const SCREENSHOT_DIR = here('../../test-results/screenshots');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
