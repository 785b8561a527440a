// One small interface over the two databases the stack runs on: PGlite (embedded, pglite.ts) or any
// PostgreSQL (postgres.ts, through postgres.js).
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';
import type { Db } from './types.ts';

export async function openDb(options: { dataDir: string; databaseUrl?: string }): Promise<Db> {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openPglite(options.dataDir);
}
