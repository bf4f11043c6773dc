import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What each subcommand takes: how many positionals, and which of the tool's options. */
export type Shapes<O extends Options> = Record<string, { positionals: number; options: readonly (keyof O)[] }>;

/**
 * An operator tool's subcommand (`client create …`, `realm provider add …`) parsed strictly, or
 * null when it is not one the tool knows (the caller prints its usage).
 */
export function parseSubcommand<O extends Options>(
  options: O,
  shapes: Shapes<O>,
  sub: string | undefined,
  rest: string[],
) {
  const shape = sub ? shapes[sub] : undefined;
  if (!sub || !shape) return null;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch {
    return null;
  }
  if (parsed.positionals.length !== shape.positionals) return null;
  if (Object.keys(parsed.values).some((o) => !shape.options.includes(o))) return null;
  return { sub, positionals: parsed.positionals, values: parsed.values };
}
