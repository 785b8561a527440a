// The local stack's pg_cron: it runs what the migrations schedule. Hosted Supabase runs `cron.schedule(name,
// schedule, command)` in pg_cron; the migrations call it only where pg_cron exists, which PGlite and a plain
// PostgreSQL lack, so the stack reads the same calls from the migration files and runs each job on its cron
// schedule (UTC, as pg_cron's default cron.timezone). A job is SQL, run as the database owner as pg_cron runs
// it, or a `net.http_post` to one of the project's own entries (`'/functions/v1/…'`, `'/rest/v1/…'`), which
// the stack POSTs with the service-role key, as the hosted job does with the key it reads from Vault.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StackConfig } from './config.ts';
import type { Db } from './db/types.ts';
import { internalApiUrl } from './functions/settings.ts';

export type CronAction = { kind: 'sql'; sql: string } | { kind: 'http'; path: string; body: string };

export interface CronJob {
  name: string;
  /** The cron expression (five fields) or pg_cron's `N seconds`. */
  schedule: string;
  action: CronAction;
}

/** One SQL literal at `at`: '…' ('' inside), E'…' or $tag$…$tag$; its text and where it ends. */
function readLiteral(sql: string, at: number): { text: string; end: number } | undefined {
  const dollar = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(at));
  if (dollar) {
    const close = sql.indexOf(dollar[0], at + dollar[0].length);
    if (close < 0) return undefined;
    return { text: sql.slice(at + dollar[0].length, close), end: close + dollar[0].length };
  }
  if (sql[at] === 'E' || sql[at] === 'e') at++;
  if (sql[at] !== "'") return undefined;
  let text = '';
  for (let i = at + 1; i < sql.length; i++) {
    if (sql[i] === "'") {
      if (sql[i + 1] === "'") {
        text += "'";
        i++;
        continue;
      }
      return { text, end: i + 1 };
    }
    text += sql[i];
  }
  return undefined;
}

/** The literal arguments of a call whose `(` is at `open`; undefined when one is not a literal. */
function literalArgs(sql: string, open: number): string[] | undefined {
  const args: string[] = [];
  let at = open + 1;
  for (;;) {
    while (/\s/.test(sql[at] ?? '')) at++;
    const literal = readLiteral(sql, at);
    if (!literal) return undefined;
    args.push(literal.text);
    at = literal.end;
    while (/\s/.test(sql[at] ?? '')) at++;
    if (sql[at] === ')') return args;
    if (sql[at] !== ',') return undefined;
    at++;
  }
}

/** What a job's command does: a POST to one of the stack's own entries, or SQL. */
export function cronAction(command: string): CronAction {
  if (/\bnet\s*\.\s*http_post\s*\(/i.test(command)) {
    const path = /'(\/(?:functions|rest)\/v1\/[^']*)'/.exec(command)?.[1];
    if (!path) throw new Error('net.http_post names no /functions/v1/ or /rest/v1/ path of the project');
    const body = /\bbody\s*:=\s*'((?:[^']|'')*)'/i.exec(command)?.[1]?.replace(/''/g, "'") ?? '{}';
    return { kind: 'http', path, body };
  }
  return { kind: 'sql', sql: command };
}

/**
 * The jobs the migrations schedule, in order: `cron.schedule(name, schedule, command)` adds or replaces the
 * job of that name (pg_cron's upsert), `cron.unschedule(name)` removes it.
 */
export function readCronJobs(migrationsDir: string): CronJob[] {
  const jobs = new Map<string, CronJob>();
  const files = readdirSync(migrationsDir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  for (const file of files) {
    const sql = readFileSync(join(migrationsDir, file), 'utf8');
    for (const call of sql.matchAll(/\bcron\s*\.\s*(schedule|unschedule)\s*\(/gi)) {
      const args = literalArgs(sql, (call.index ?? 0) + call[0].length - 1);
      if (!args) {
        console.warn(`cron: ${file}: a cron.${call[1]} call with arguments other than literals is not run locally`);
        continue;
      }
      if (call[1].toLowerCase() === 'unschedule') {
        jobs.delete(args[0]);
        continue;
      }
      // cron.schedule(schedule, command) names no job: pg_cron numbers it.
      const [name, schedule, command] = args.length === 3 ? args : [`${file}#${jobs.size + 1}`, ...args];
      try {
        cronNext(schedule, new Date());
        jobs.set(name, { name, schedule, action: cronAction(command) });
      } catch (err) {
        console.warn(`cron: ${file}: job ${name} is not run locally: ${err instanceof Error ? err.message : err}`);
      }
    }
  }
  return [...jobs.values()];
}

const FIELDS = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12 },
  { min: 0, max: 7 },
];

/** One field of a cron expression as the set of values it allows. */
function cronField(text: string, { min, max }: { min: number; max: number }): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) throw new Error(`unsupported cron field "${text}"`);
    const from = m[1] === '*' ? min : Number(m[2]);
    const to = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? max : from;
    const step = m[4] === undefined ? 1 : Number(m[4]);
    if (from < min || to > max || from > to || step < 1) throw new Error(`cron field "${text}" out of range`);
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

/** The next time after `from` a schedule runs: a five-field cron expression in UTC, or `N seconds`. */
export function cronNext(schedule: string, from: Date): Date {
  const seconds = /^\s*(\d+)\s+seconds?\s*$/i.exec(schedule);
  if (seconds) return new Date(from.getTime() + Number(seconds[1]) * 1000);
  const parts = schedule.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`unsupported schedule "${schedule}"`);
  const [minute, hour, day, month, weekday] = parts.map((p, i) => cronField(p, FIELDS[i]));
  if (weekday.has(7)) weekday.add(0);
  // As cron: when both day fields are restricted, either one may match.
  const anyDay = parts[2] !== '*' && parts[4] !== '*';
  const t = new Date(from.getTime());
  t.setUTCSeconds(0, 0);
  for (let i = 0; i < 366 * 24 * 60; i++) {
    t.setUTCMinutes(t.getUTCMinutes() + 1);
    const dayOk = anyDay
      ? day.has(t.getUTCDate()) || weekday.has(t.getUTCDay())
      : day.has(t.getUTCDate()) && weekday.has(t.getUTCDay());
    if (minute.has(t.getUTCMinutes()) && hour.has(t.getUTCHours()) && month.has(t.getUTCMonth() + 1) && dayOk) {
      return t;
    }
  }
  throw new Error(`schedule "${schedule}" never runs`);
}

/**
 * Runs the jobs, each one call at a time (a run still under way skips its turn); a failed run is logged and
 * the next turn tries again. Returns the stop function, which waits for runs under way.
 */
export function startCron(config: StackConfig, db: Db, jobs: CronJob[]): () => Promise<void> {
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  let stopped = false;
  const headers = {
    Authorization: `Bearer ${config.serviceRoleKey}`,
    apikey: config.serviceRoleKey,
    'Content-Type': 'application/json',
  };
  const runOnce = async (job: CronJob) => {
    if (job.action.kind === 'sql') {
      await db.exec(job.action.sql);
      return;
    }
    const url = `${internalApiUrl(config)}${job.action.path}`;
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: job.action.body,
      signal: AbortSignal.timeout(120_000),
    });
    const body = await res.text();
    if (!res.ok) throw new Error(`${res.status} ${body.slice(0, 300)}`);
  };
  for (const job of jobs) {
    const every = config.cron[job.name] ?? config.cron['*'];
    if (every === 0) continue;
    let current: Promise<void> | undefined;
    const run = () => {
      if (current || stopped) return;
      current = runOnce(job)
        .catch((err: unknown) => console.error(`cron ${job.name}:`, err instanceof Error ? err.message : err))
        .finally(() => {
          if (current) running.delete(current);
          current = undefined;
        });
      running.add(current);
    };
    if (every !== undefined) {
      const timer = setInterval(run, Math.max(every * 1000, 50));
      timer.unref();
      timers.add(timer);
      continue;
    }
    // A timer waits at most a day (Node's limit is under 25), then looks again.
    let due = cronNext(job.schedule, new Date()).getTime();
    const arm = () => {
      if (stopped) return;
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          if (Date.now() >= due) {
            run();
            due = cronNext(job.schedule, new Date()).getTime();
          }
          arm();
        },
        Math.min(Math.max(due - Date.now(), 0), 86_400_000),
      );
      timer.unref();
      timers.add(timer);
    };
    arm();
  }
  return async () => {
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    await Promise.all(running);
  };
}
