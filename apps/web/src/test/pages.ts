import { PAGE_REGISTRY } from '../pages/registry';

/** Every page address of the app (a mailed link's with a token) and one that is none, for tests that go through them all. */
export const PAGES = [
  ...PAGE_REGISTRY.map((page) => (page.linkToken ? `${page.path}?token=abc` : page.path)),
  '/no/such/page',
];
