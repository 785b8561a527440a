// Bootstraps what Supabase provides, then applies supabase/migrations/*.sql in order, once each.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './types.ts';

const bootstrapDir = join(import.meta.dirname, 'bootstrap');

function sqlFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
}

/** Applies the bootstrap (idempotent, every start) and the pending migrations; returns the versions applied now. */
// Stacks that share one PostgreSQL (tests, several processes) take turns: bootstrap and migrations run under
// one advisory lock, in one transaction, so a failed migration leaves nothing half-applied.
const MIGRATION_LOCK = 5432_1001;

/** Applies the bootstrap (idempotent, every start) and the pending migrations; returns the versions applied now. */
export async function migrate(db: Db, migrationsDir: string): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    for (const file of sqlFiles(bootstrapDir)) {
      await tx.exec(readFileSync(join(bootstrapDir, file), 'utf8'));
    }
    await tx.exec(`
      create table if not exists supabase_migrations.schema_migrations (
        version text primary key,
        name text,
        statements text[]
      )`);
    const done = new Set(
      (await tx.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).map(
        (r) => r.version,
      ),
    );
    const applied: string[] = [];
    for (const file of sqlFiles(migrationsDir)) {
      const [version, ...rest] = file.replace(/\.sql$/, '').split('_');
      if (done.has(version)) continue;
      const text = readFileSync(join(migrationsDir, file), 'utf8');
      await tx.exec(text);
      await tx.query(
        'insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)',
        [version, rest.join('_'), [text]],
      );
      applied.push(version);
    }
    return applied;
  });
}
