// Builds one migrated database for the whole run; each test file starts its stack on a copy of it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDb } from '../../supabase/local/db/index.ts';
import { migrate } from '../../supabase/local/db/migrate.ts';

export default async function setup(project: TestProject) {
  const migrations = resolve('supabase/migrations');
  if (process.env.DATABASE_URL) {
    const db = await openDb({ dataDir: '', databaseUrl: process.env.DATABASE_URL });
    await migrate(db, migrations);
    await db.close();
    project.provide('templateDir', '');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'signals-template-'));
  const db = await openDb({ dataDir: dir });
  await migrate(db, migrations);
  await db.close();
  project.provide('templateDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    templateDir: string;
  }
}
