// Realtime's broadcast HTTP API under /realtime/v1/api:
// - POST /broadcast: a batch {messages: [{topic, event, payload, private?, id?}]} (RealtimeWeb.BroadcastController,
//   Realtime.Tenants.BatchBroadcast), what realtime-js's send() uses on a channel it has not joined;
// - POST /broadcast/:topic/events/:event[?private=true]: one message, JSON or bytes (BroadcastSingleController,
//   SingleBroadcast), what httpSend() uses.
// Both answer 202 with no body. The token is the Authorization bearer, else the apikey (RealtimeWeb.AuthTenant);
// a private message needs the insert policy of realtime.messages for its topic: the batch skips a topic the
// token may not write, the single message answers 403.
import { Hono, type MiddlewareHandler } from 'hono';
import type { Claims } from '../jwt.ts';
import { bearer } from '../jwt.ts';
import { broadcastWriteRight, checkToken } from './auth.ts';
import type { RealtimeEnv } from './socket.ts';

type Errors = Record<string, string[]>;
type Env = { Variables: { claims: Claims } };

function messageErrors(m: unknown): Errors {
  const errors: Errors = {};
  if (!m || typeof m !== 'object' || Array.isArray(m)) return { messages: ['is invalid'] };
  const r = m as Record<string, unknown>;
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  for (const field of ['topic', 'event'] as const) {
    if (r[field] === undefined || r[field] === null || r[field] === '') add(field, "can't be blank");
    else if (typeof r[field] !== 'string') add(field, 'is invalid');
  }
  if (r.payload === undefined || r.payload === null) add('payload', "can't be blank");
  else if (typeof r.payload !== 'object' || Array.isArray(r.payload)) add('payload', 'is invalid');
  if (r.private !== undefined && r.private !== null && typeof r.private !== 'boolean') add('private', 'is invalid');
  if (r.id !== undefined && r.id !== null && typeof r.id !== 'string') add('id', 'is invalid');
  return errors;
}

export function realtimeApp(env: RealtimeEnv): Hono {
  const app = new Hono<Env>();
  const unauthorized = { message: 'Unauthorized' };

  const authenticate: MiddlewareHandler<Env> = async (c, next) => {
    const token = bearer(c.req.header('authorization')) ?? c.req.header('apikey');
    if (!token) return c.json(unauthorized, 401);
    const check = await checkToken(token, env.jwtKeys);
    if (!check.ok) return c.json(unauthorized, 401);
    c.set('claims', check.claims);
    await next();
  };
  app.use('/api/broadcast', authenticate);
  app.use('/api/broadcast/*', authenticate);

  app.post('/api/broadcast', async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ errors: { messages: ["can't be blank"] } }, 422);
    }
    const messages = (body as { messages?: unknown } | null)?.messages;
    if (!Array.isArray(messages) || messages.length === 0) {
      return c.json({ errors: { messages: [Array.isArray(messages) ? "can't be blank" : 'is invalid'] } }, 422);
    }
    const errors = messages.map(messageErrors);
    if (errors.some((e) => Object.keys(e).length > 0)) return c.json({ errors: { messages: errors } }, 422);
    type Message = { topic: string; event: string; payload: Record<string, unknown>; private?: boolean; id?: string };
    const valid = messages as Message[];
    const claims = c.get('claims');
    const allowed = new Map<string, boolean>();
    for (const m of valid) {
      const isPrivate = m.private === true;
      if (isPrivate && !allowed.has(m.topic)) {
        allowed.set(m.topic, await broadcastWriteRight(env.db, m.topic, claims).catch(() => false));
      }
      if (isPrivate && !allowed.get(m.topic)) continue;
      const payload: Record<string, unknown> = { payload: m.payload, event: m.event, type: 'broadcast' };
      if (m.id) payload.meta = { id: m.id };
      env.hub.broadcast(m.topic, isPrivate, { kind: 'json', payload });
    }
    return c.body(null, 202);
  });

  app.post('/api/broadcast/:topic/events/:event', async (c) => {
    const type = c.req.header('content-type');
    const media = type?.split(';')[0]?.trim().toLowerCase();
    if (type !== undefined && media !== 'application/json' && media !== 'application/octet-stream') {
      return c.json({ error: 'Unsupported Media Type. Use application/json or application/octet-stream' }, 415);
    }
    const topic = c.req.param('topic');
    const event = c.req.param('event');
    const isPrivate = c.req.query('private') === 'true';
    const raw = Buffer.from(await c.req.arrayBuffer());
    let body: Buffer;
    let encoding: 'json' | 'binary';
    if (media === 'application/octet-stream') {
      encoding = 'binary';
      body = raw;
    } else {
      encoding = 'json';
      let parsed: unknown;
      try {
        parsed = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
      } catch {
        return c.json({ errors: { payload: ['is invalid'] } }, 422);
      }
      if (parsed === undefined || parsed === null) return c.json({ errors: { payload: ["can't be blank"] } }, 422);
      body = Buffer.from(JSON.stringify(parsed), 'utf8');
    }
    if (isPrivate) {
      const allowed = await broadcastWriteRight(env.db, topic, c.get('claims')).catch(() => false);
      if (!allowed) return c.json(unauthorized, 403);
    }
    env.hub.broadcast(topic, isPrivate, { kind: 'user', userEvent: event, encoding, body });
    return c.body(null, 202);
  });

  app.notFound((c) => c.json({ errors: { detail: 'Not Found' } }, 404));
  return app as unknown as Hono;
}
