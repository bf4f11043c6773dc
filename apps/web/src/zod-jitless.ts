// zod compiles its object parsers with `new Function` where the page allows it, and finds out by
// trying once: under this app's Content-Security-Policy (no 'unsafe-eval') that try is refused
// and reported as a violation, although zod catches it. Told not to compile, it does not try.
// zod keeps its settings on globalThis; this runs before any schema is built (main.tsx imports
// it first), whether zod's own module ran before it or not.
const zodConfig = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
(zodConfig.__zod_globalConfig ??= {}).jitless = true;
