import { sql } from 'drizzle-orm';
import type { Database } from '@accounts/db';

/** Resolves when the database answers a trivial query within `timeoutMs`; rejects otherwise. */
export async function databaseAnswers(db: Database, timeoutMs: number): Promise<void> {
  await Promise.race([
    db.execute(sql`select 1`),
    new Promise((_, reject) => setTimeout(() => reject(new Error('database ping timed out')), timeoutMs).unref()),
  ]);
}
