// Builds one migrated database for the whole run; each test stack starts on a copy of it, so test files
// never see each other's rows: a copied PGlite folder, or on PostgreSQL a database made from a template.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDb } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';

export default async function setup(project: TestProject) {
  // One per project: the site's and the stack's integration projects may run in one process.
  const TEMPLATE_DB = `signals_test_template_${randomBytes(4).toString('hex')}`;
  const migrations = resolve('supabase/migrations');
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${TEMPLATE_DB} with (force)`);
    await admin.unsafe(`create database ${TEMPLATE_DB}`);
    const url = new URL(adminUrl);
    url.pathname = `/${TEMPLATE_DB}`;
    const db = await openDb({ dataDir: '', databaseUrl: url.toString() });
    await migrate(db, migrations);
    await db.close();
    project.provide('template', { kind: 'postgres', adminUrl, name: TEMPLATE_DB });
    return async () => {
      await admin.unsafe(`drop database if exists ${TEMPLATE_DB} with (force)`);
      await admin.end();
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'signals-template-'));
  const db = await openDb({ dataDir: dir });
  await migrate(db, migrations);
  await db.close();
  project.provide('template', { kind: 'pglite', dir });
  return () => rmSync(dir, { recursive: true, force: true });
}

export type Template = { kind: 'pglite'; dir: string } | { kind: 'postgres'; adminUrl: string; name: string };

declare module 'vitest' {
  export interface ProvidedContext {
    template: Template;
  }
}
