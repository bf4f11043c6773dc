import { writeFileSync } from 'node:fs';
import { format } from 'prettier';
import { exportJsonSchema } from '../src/account/export-json-schema.js';

// Writes docs/account-export.schema.json from the export's own schema (a test checks it is current).
const target = new URL('../../../docs/account-export.schema.json', import.meta.url);
writeFileSync(target, await format(JSON.stringify(exportJsonSchema()), { parser: 'json', printWidth: 120 }));
console.log(`wrote ${target.pathname}`);
