import type { AppRouter, ProcedureMeta, ProcedurePath } from '@accounts/api';
import { z } from 'zod';

/** What the gateway reads of a procedure: its kind, its input and output schemas, and its meta. */
export interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  /** The zod object of its input (none for a procedure without input). */
  input?: z.ZodObject;
  output?: z.ZodObject;
  meta: ProcedureMeta;
}

/** How tRPC keeps a procedure at run time (its published type of `_def.procedures` is the nested record). */
interface BuiltProcedure {
  _def: { type: ProcedureDef['type']; inputs: unknown[]; output?: unknown; meta?: ProcedureMeta };
}

/**
 * The procedure at a path, or null when the router has none there (a path from a URL; own keys
 * only: "toString" or "__proto__" is no procedure). The one place that reads tRPC's internals.
 */
export function procedureAt(router: AppRouter, path: string): ProcedureDef | null {
  const procedures = router._def.procedures as unknown as Readonly<Record<string, BuiltProcedure>>;
  if (!Object.hasOwn(procedures, path)) return null;
  const { type, inputs, output, meta } = procedures[path]!._def;
  const [input] = inputs;
  return {
    type,
    input: input instanceof z.ZodObject ? input : undefined,
    output: output instanceof z.ZodObject ? output : undefined,
    meta: meta ?? {},
  };
}

/** The procedure a typed path names (the type guarantees it exists). */
export function procedureDef(router: AppRouter, path: ProcedurePath): ProcedureDef {
  const procedure = procedureAt(router, path);
  if (!procedure) throw new Error(`no procedure ${path}`);
  return procedure;
}

/** The one method a procedure takes over HTTP: GET for a query, POST for a mutation. */
export const methodOf = (procedure: ProcedureDef): 'GET' | 'POST' => (procedure.type === 'mutation' ? 'POST' : 'GET');
