// Starts a real local stack for one test file: its own ports, its own copy of the migrated database.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js';
import postgres from 'postgres';
import { expect, inject } from 'vitest';
import { loadConfig, type StackConfig } from '../src/config.ts';
import { type MailCatcher, startMailCatcher } from '../src/mail/index.ts';
import { type RunningStack, startStack } from '../src/server.ts';
import { freePort } from './free-port.ts';

export interface MailSummary {
  ID: string;
  From: { Name: string; Address: string };
  To: { Name: string; Address: string }[];
  Subject: string;
  Created: string;
  Snippet: string;
}
export interface MailMessage extends MailSummary {
  ReplyTo: { Name: string; Address: string }[];
  Text: string;
  HTML: string;
}

export interface TestStack {
  stack: RunningStack;
  url: string;
  config: StackConfig;
  /**
   * A fresh supabase-js client with the anon key and no shared storage; `anon<Database>()` types its tables by
   * the project's generated `Database`, as createClient<Database>() does.
   */
  anon(): SupabaseClient;
  anon<Database>(): SupabaseClient<Database>;
  /** A supabase-js client with the service_role key (`admin<Database>()`: typed as `anon`). */
  admin(): SupabaseClient;
  admin<Database>(): SupabaseClient<Database>;
  mail: {
    list(): Promise<MailSummary[]>;
    get(id: string): Promise<MailMessage>;
    /** Waits for the newest message to `to` and returns it. */
    waitFor(to: string, timeoutMs?: number): Promise<MailMessage>;
    clear(): Promise<void>;
  };
  stop(): Promise<void>;
}

/** A private copy of the run's migrated database: a PGlite folder, or a PostgreSQL database. */
async function copyTemplate(dataDir: string): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const template = inject('template');
  if (template.kind === 'pglite') {
    cpSync(template.dir, dataDir, { recursive: true });
    return undefined;
  }
  const name = `signals_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(template.adminUrl, { max: 1, onnotice: () => {} });
  await createDatabaseFromTemplate(admin, name, template.name);
  const url = new URL(template.adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

async function createDatabaseFromTemplate(admin: postgres.Sql, name: string, template: string): Promise<void> {
  // CREATE DATABASE fails while another session copies the same template: retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.unsafe(`create database ${name} template ${template}`);
      return;
    } catch (err) {
      if (attempt > 50 || !/being accessed by other users/.test(String(err))) throw err;
      await sleep(100 + Math.random() * 200);
    }
  }
}

/**
 * Starts the stack on ports that were free a moment ago. Another process can take such a port before the
 * stack binds it (client sockets get ports from the same range), so a port in use means new ports and
 * another try.
 */
async function startOnFreePorts(
  dataDir: string,
  databaseUrl: string | undefined,
  overrides: Partial<StackConfig>,
): Promise<RunningStack> {
  for (let attempt = 1; ; attempt++) {
    const ports = { api: await freePort(), db: await freePort(), mailWeb: await freePort(), smtp: await freePort() };
    const config = loadConfig(
      { ...process.env, RATE_LIMITS: process.env.RATE_LIMITS ?? 'off', SITE_URL: 'http://127.0.0.1:4321' },
      { ports, dataDir, databaseUrl, ...overrides },
    );
    // SMTP and external URL follow the chosen ports unless a test overrides them.
    config.smtpUrl = overrides.smtpUrl ?? `smtp://127.0.0.1:${ports.smtp}`;
    config.apiExternalUrl = overrides.apiExternalUrl ?? `http://127.0.0.1:${ports.api}`;
    try {
      return await startStack(config);
    } catch (err) {
      if (attempt >= 3 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}

/**
 * Waits `ms`. For time a test is about (a token's expiry, a rate limit's window, a retry delay); a test waiting for
 * something to happen polls for it with `until`.
 */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every `everyMs` until it gives a value; throws naming `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)`);
    await sleep(everyMs);
  }
}

export async function startTestStack(overrides: Partial<StackConfig> = {}): Promise<TestStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'signals-stack-'));
  // A test that brings its own database (a PostgreSQL cluster it restarts) gets no copy of the template.
  const database = overrides.databaseUrl ? undefined : await copyTemplate(dataDir);
  const stack = await startOnFreePorts(dataDir, database?.url, overrides);
  const ports = stack.config.ports;
  const mailBase = `http://127.0.0.1:${ports.mailWeb}/api/v1`;
  const client = <Database>(key: string) =>
    createClient<Database>(stack.url, key, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
  const mail = {
    async list() {
      const res = await fetch(`${mailBase}/messages`);
      return ((await res.json()) as { messages: MailSummary[] }).messages;
    },
    async get(id: string) {
      return (await (await fetch(`${mailBase}/message/${id}`)).json()) as MailMessage;
    },
    async waitFor(to: string, timeoutMs = 5000) {
      const hit = await until(
        `mail to ${to}`,
        async () => (await mail.list()).find((m) => m.To.some((t) => t.Address.toLowerCase() === to.toLowerCase())),
        timeoutMs,
        50,
      );
      return mail.get(hit.ID);
    },
    async clear() {
      await fetch(`${mailBase}/messages`, { method: 'DELETE' });
    },
  };
  return {
    stack,
    url: stack.url,
    config: stack.config,
    anon: <Database>() => client<Database>(stack.config.anonKey),
    admin: <Database>() => client<Database>(stack.config.serviceRoleKey),
    mail,
    async stop() {
      await stack.stop();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The status and JSON body of a function call that failed (a FunctionsHttpError), as the site reads them. */
export async function failure(error: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  expect(error).toBeInstanceOf(FunctionsHttpError);
  const res = (error as FunctionsHttpError).context as Response;
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The response headers of a function call that failed. */
export function failureHeaders(error: unknown): Headers {
  expect(error).toBeInstanceOf(FunctionsHttpError);
  return ((error as FunctionsHttpError).context as Response).headers;
}

/** A stack whose SMTP relay is down: nothing listens on its relay port until `relayUp()` starts a catcher there. */
export interface RelayDownStack {
  t: TestStack;
  /** The catcher on the relay port, once `relayUp()` has started it. */
  relay: MailCatcher | undefined;
  /** Starts a mail catcher on the relay port (the relay comes back); its web API on `webPort`. */
  relayUp(webPort?: number): Promise<MailCatcher>;
  stop(): Promise<void>;
}

export async function startStackWithRelayDown(overrides: Partial<StackConfig> = {}): Promise<RelayDownStack> {
  const relayPort = await freePort();
  const t = await startTestStack({ smtpUrl: `smtp://127.0.0.1:${relayPort}`, ...overrides });
  const down: RelayDownStack = {
    t,
    relay: undefined,
    async relayUp(webPort) {
      down.relay = await startMailCatcher({
        host: '127.0.0.1',
        smtpPort: relayPort,
        webPort: webPort ?? (await freePort()),
      });
      return down.relay;
    },
    async stop() {
      await t.stop();
      await down.relay?.close();
    },
  };
  return down;
}
