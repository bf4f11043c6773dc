import { z } from 'zod';
import { accountExportSchema } from './export-outputs.js';

/** The JSON Schema (2020-12) of the exported document as it leaves: dates as RFC 3339 strings. */
export function exportJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(accountExportSchema, {
    io: 'output',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type === 'date') Object.assign(jsonSchema, { type: 'string', format: 'date-time' });
    },
  }) as Record<string, unknown>;
  return {
    ...schema,
    $id: 'https://accounts.invalid/account-export.schema.json',
    title: 'A copy of an account’s data (accounts-export/1)',
  };
}
