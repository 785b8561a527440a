// Wires the services onto their ports; start and clean stop.

import { join } from 'node:path';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { loadApiKeys, translateApiKeys } from './api-keys.ts';
import { authApp } from './auth/index.ts';
import { parseTrustedProxies } from './client-address.ts';
import { assertSafeToExpose, DEMO_JWT_SECRET, isLoopbackHost, loadConfig, type StackConfig } from './config.ts';
import type { StackContext } from './context.ts';
import { readCronJobs, startCron } from './cron.ts';
import { openDb } from './db/index.ts';
import { migrate } from './db/migrate.ts';
import { functionsApp } from './functions/index.ts';
import { cors, limitBody, requireApiKey, securityHeaders, settleUnreadBody, warnUntrustedProxy } from './http.ts';
import { loadJwtKeys, signJwt } from './jwt.ts';
import { startMailCatcher } from './mail/index.ts';
import { createMailer } from './mail/mailer.ts';
import { readProjectToml } from './project.ts';
import { type Realtime, realtimeConfigNotice, startRealtime } from './realtime/index.ts';
import { restApp } from './rest/index.ts';
import { refuseUpgrade, serviceOff } from './services-off.ts';

export interface RunningStack {
  config: StackConfig;
  ctx: StackContext;
  /** The API's base URL, what supabase-js is given. */
  url: string;
  stop(): Promise<void>;
}

/** Builds the gateway app over the API services (Realtime's HTTP routes when it runs). */
export function apiApp(ctx: StackContext, realtime?: Realtime): Hono {
  const app = new Hono();
  app.use('*', settleUnreadBody);
  app.use('*', warnUntrustedProxy(ctx.trustedProxies));
  app.use('*', securityHeaders);
  app.use('/auth/v1/*', translateApiKeys(ctx.config));
  app.use('/rest/v1/*', translateApiKeys(ctx.config));
  app.use('/functions/v1/*', translateApiKeys(ctx.config));
  app.use('/auth/v1/*', cors);
  app.use('/rest/v1/*', cors);
  // Functions read their own bodies and answer 413 with their CORS headers, as a browser needs.
  app.use('/auth/v1/*', limitBody);
  app.use('/rest/v1/*', limitBody);
  // Links opened from an email and the readiness probe carry no key, as on the hosted gateway.
  app.use('/auth/v1/*', async (c, next) => {
    const path = c.req.path;
    if (path === '/auth/v1/verify' && c.req.method === 'GET') return next();
    // The CLI's gateway opens /authorize (and /callback) to browsers without a key, as it does /verify.
    if (path === '/auth/v1/authorize') return next();
    if (path === '/auth/v1/health') return next();
    // The key discovery endpoint is public on hosted projects: verifiers fetch it without a key.
    if (path === '/auth/v1/.well-known/jwks.json') return next();
    return requireApiKey(c, next);
  });
  app.use('/rest/v1/*', requireApiKey);
  app.route('/auth/v1', authApp(ctx));
  app.route('/rest/v1', restApp(ctx));
  app.route('/functions/v1', functionsApp(ctx));
  if (realtime) {
    app.use('/realtime/v1/*', translateApiKeys(ctx.config));
    app.use('/realtime/v1/*', cors);
    app.use('/realtime/v1/*', limitBody);
    app.use('/realtime/v1/*', requireApiKey);
    app.route('/realtime/v1', realtime.app);
  }
  // Storage (and Realtime when config.toml disables it) are switched off: the CLI gateway's answer
  // (services-off.ts).
  app.use('/storage/v1/*', cors);
  app.all('/storage/v1/*', serviceOff);
  if (!realtime) {
    app.use('/realtime/v1/*', cors);
    app.all('/realtime/v1/*', serviceOff);
  }
  app.notFound((c) => c.json({ message: 'no Route matched with those values' }, 404));
  return app;
}

/** With a JWT secret of its own, the stack signs its own anon and service_role keys. */
async function withKeys(config: StackConfig): Promise<StackConfig> {
  if (config.jwtSecret === DEMO_JWT_SECRET) return config;
  const exp = 1983812996;
  return {
    ...config,
    anonKey:
      process.env.SUPABASE_ANON_KEY ?? (await signJwt({ iss: 'supabase-demo', role: 'anon', exp }, config.jwtSecret)),
    serviceRoleKey:
      process.env.SUPABASE_SERVICE_ROLE_KEY ??
      (await signJwt({ iss: 'supabase-demo', role: 'service_role', exp }, config.jwtSecret)),
  };
}

function listen(app: Hono, port: number, host: string, realtime?: Realtime): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(server));
    // A port in use rejects the start (which stops what already started) instead of ending the process.
    server.once('error', reject);
    // Only Realtime speaks WebSocket; any other upgrade (or every one, Realtime off) gets the gateway's answer.
    server.on('upgrade', (req, socket, head) =>
      realtime ? realtime.upgrade(req, socket, head) : refuseUpgrade(req, socket),
    );
  });
}

export async function startStack(config: StackConfig = loadConfig()): Promise<RunningStack> {
  config = await withKeys(config);
  // A bad TRUSTED_PROXIES stops the start before anything listens.
  const trustedProxies = parseTrustedProxies(config.trustedProxies);
  const db = await openDb(config);
  // What has started so far, stopped in reverse if a later step fails (a port in use, say).
  const started: (() => unknown)[] = [() => db.close()];
  const stopAll = async () => {
    for (const stop of started.reverse()) await Promise.resolve(stop()).catch(() => {});
  };
  try {
    // After the database: PGlite makes DATA_DIR its own folder first.
    const apiKeys = loadApiKeys(config);
    config = { ...config, publishableKey: apiKeys.publishable, secretKey: apiKeys.secret };
    // On an address other machines reach, no public demo secret: refused before anything listens.
    assertSafeToExpose(config);
    const jwtKeys = await loadJwtKeys(config.jwtSecret, config.jwtSigning, config.dataDir);
    // With a secret of the stack's own, HS256 is taken only for its two API keys (ES256 mode).
    if (config.jwtSecret !== DEMO_JWT_SECRET && jwtKeys.signing === 'ES256') {
      jwtKeys.hs256Tokens = new Set([config.anonKey, config.serviceRoleKey]);
    }
    await migrate(db, join(config.supabaseDir, 'migrations'));
    await db.prepareRestLogin?.();

    // Only the API follows BIND_ADDRESS: the mail catcher (live sign-in links) and PGlite's socket (the
    // superuser, no password) stay on loopback whatever it says.
    const localHost = loopbackHostOf(config);
    const mail = await startMailCatcher({
      host: localHost,
      smtpPort: config.ports.smtp,
      webPort: config.ports.mailWeb,
      dataDir: config.dataDir,
    });
    started.push(() => mail.close());
    const mailer = createMailer(config.smtpUrl, config.mailFrom);
    started.push(() => mailer.close());
    const ctx: StackContext = {
      config,
      db,
      jwtKeys,
      mailer,
      project: readProjectToml(config.supabaseDir),
      trustedProxies,
    };

    if (db.pglite) {
      const socket = new PGLiteSocketServer({ db: db.pglite, port: config.ports.db, host: localHost });
      await socket.start();
      started.push(() => socket.stop());
    }
    // Realtime, unless REALTIME=off. Its sockets close first on stop (the API port's close waits for every
    // connection), its database feed before the database.
    const notice = realtimeConfigNotice(ctx.project);
    if (notice && config.realtime) console.warn(notice);
    const realtime = config.realtime ? await startRealtime(ctx) : undefined;
    const api = await listen(apiApp(ctx, realtime), config.ports.api, config.host, realtime).catch(async (err) => {
      await realtime?.close();
      throw err;
    });
    started.push(() => new Promise<void>((resolve) => api.close(() => resolve())));
    if (realtime) started.push(() => realtime.close());
    // What the migrations schedule with pg_cron; where pg_cron itself is there (cron.job), it runs them.
    const [pgCron] = await db.query<{ present: boolean }>("select to_regclass('cron.job') is not null as present");
    if (!pgCron?.present) started.push(startCron(config, db, readCronJobs(join(config.supabaseDir, 'migrations'))));

    return {
      config,
      ctx,
      url: `http://${config.host}:${config.ports.api}`,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Where the mail catcher and PGlite's socket listen: BIND_ADDRESS when loopback, else 127.0.0.1. */
const loopbackHostOf = (config: StackConfig) => (isLoopbackHost(config.host) ? config.host : '127.0.0.1');

/** The URLs and keys a developer needs, as `npm start` and `npm run stack` print them. */
export function stackSummary(stack: RunningStack): string {
  const { config } = stack;
  return [
    `  Supabase API:     ${stack.url}  (${stack.ctx.db.kind}${config.databaseUrl ? '' : `, data in ${config.dataDir}`})`,
    `  Postgres:         ${config.databaseUrl ? '(DATABASE_URL)' : `postgresql://postgres@${loopbackHostOf(config)}:${config.ports.db}/postgres`}`,
    `  Mail catcher:     http://${loopbackHostOf(config)}:${config.ports.mailWeb}  (SMTP ${loopbackHostOf(config)}:${config.ports.smtp})`,
    `  anon key:         ${config.anonKey}`,
    `  service_role key: ${config.serviceRoleKey}`,
    `  publishable key:  ${config.publishableKey}`,
    `  secret key:       ${config.secretKey}`,
    `  access tokens:    ${stack.ctx.jwtKeys.signing === 'ES256' ? `ES256, kid ${stack.ctx.jwtKeys.kid} (${stack.url}/auth/v1/.well-known/jwks.json)` : 'HS256 (JWT_SIGNING=hs256)'}`,
  ].join('\n');
}

/** Runs `stop` once on the first SIGINT or SIGTERM, then exits. */
export function stopOnSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping`);
    stop().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
}
