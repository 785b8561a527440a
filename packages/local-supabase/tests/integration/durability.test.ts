// The stack killed with SIGKILL in the middle of writes loses no row whose write was acknowledged.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { afterAll, expect, inject, test } from 'vitest';
import { DEMO_SERVICE_ROLE_KEY } from '../../src/config.ts';
import { freePort } from '../../testing/free-port.ts';
import { until } from '../../testing/stack.ts';

const template = inject('template');
const dataDir = mkdtempSync(join(tmpdir(), 'signals-kill-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function startProcess(ports: Record<string, number>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(import.meta.dirname, '../../src/main.ts')], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      RATE_LIMITS: 'off',
      SUPABASE_API_PORT: String(ports.api),
      SUPABASE_DB_PORT: String(ports.db),
      SUPABASE_MAIL_PORT: String(ports.mail),
      SUPABASE_SMTP_PORT: String(ports.smtp),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      if (out.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`stack exited with ${code} before it was ready`)));
  });
  return child;
}

// PostgreSQL's durability is PostgreSQL's own; this is about the embedded database.
test.skipIf(template.kind !== 'pglite')(
  'rows acknowledged before a SIGKILL are there after a restart',
  async () => {
    if (template.kind === 'pglite') cpSync(template.dir, dataDir, { recursive: true });
    const ports = { api: await freePort(), db: await freePort(), mail: await freePort(), smtp: await freePort() };
    const url = `http://127.0.0.1:${ports.api}`;
    const db = () => createClient(url, DEMO_SERVICE_ROLE_KEY, { auth: { persistSession: false } });

    const first = await startProcess(ports);
    const acknowledged: string[] = [];
    let writing = true;
    // Four writers insert contact messages as fast as they can; the process is killed while they run.
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; writing; i++) {
        const email = `w${w}-${i}@example.com`;
        const { error } = await db()
          .from('contact_messages')
          .insert({ name: 'Kill test', email, subject: 'Durability', message: `row ${i}` });
        if (error) return;
        acknowledged.push(email);
      }
    });
    // Killed once writes are flowing, however long the first ones take on a busy machine.
    await until('20 acknowledged writes', async () => (acknowledged.length >= 20 ? true : undefined), 30_000, 20);
    first.kill('SIGKILL');
    writing = false;
    await Promise.allSettled(writers);
    expect(acknowledged.length).toBeGreaterThan(10);

    const second = await startProcess(ports);
    try {
      const { data, error } = await db().from('contact_messages').select('email').eq('subject', 'Durability');
      expect(error).toBeNull();
      const stored = new Set((data ?? []).map((r) => r.email));
      expect(acknowledged.filter((email) => !stored.has(email))).toEqual([]);
    } finally {
      second.kill('SIGTERM');
      await new Promise((r) => second.once('exit', r));
    }
  },
  120_000,
);
