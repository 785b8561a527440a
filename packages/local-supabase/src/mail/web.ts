// The catcher's HTTP side: a Mailpit-compatible JSON API under /api/v1 and two small pages.
import { type Context, Hono } from 'hono';
import { detail, summary } from './message.ts';
import { listPage, messagePage, notFoundPage, PAGE_CSP } from './page.ts';
import type { MailStore } from './store.ts';

const DEFAULT_LIMIT = 50;

function page<T>(items: T[], startParam?: string, limitParam?: string) {
  const start = Math.max(0, Number.parseInt(startParam ?? '0', 10) || 0);
  const limit = Math.max(1, Number.parseInt(limitParam ?? String(DEFAULT_LIMIT), 10) || DEFAULT_LIMIT);
  return { start, items: items.slice(start, start + limit) };
}

/** Mailpit's search, reduced to what tests and people use: to:, from:, subject:, and plain words. */
export function matches(m: ReturnType<typeof detail>, query: string): boolean {
  const terms = query.match(/(\w+:)?("[^"]*"|\S+)/g) ?? [];
  return terms.every((term) => {
    const [, field, rawValue] = /^(?:(\w+):)?(.*)$/.exec(term) ?? [];
    const value = (rawValue ?? '').replace(/^"|"$/g, '').toLowerCase();
    const has = (s: string) => s.toLowerCase().includes(value);
    const addr = (as: { Name: string; Address: string }[]) => as.some((a) => has(a.Address) || has(a.Name));
    switch (field?.toLowerCase()) {
      case 'to':
        return addr(m.To) || addr(m.Cc) || addr(m.Bcc);
      case 'from':
        return addr([m.From]);
      case 'subject':
        return has(m.Subject);
      default:
        return has(m.Subject) || has(m.Text) || addr([m.From]) || addr(m.To);
    }
  });
}

/** Where the catcher's page is served: the Host names it answers to. */
export interface MailWebOrigin {
  port: number;
  /** The address it listens on, when not loopback (BIND_ADDRESS): that name is accepted too. */
  host?: string;
}

/** `localhost`, `127.0.0.1` and `[::1]` (and a non-loopback bind address) with the catcher's port. */
export function allowedHosts(origin: MailWebOrigin): Set<string> {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  const bind = origin.host?.includes(':') ? `[${origin.host}]` : origin.host;
  if (bind && !names.includes(bind) && bind !== '0.0.0.0' && bind !== '[::]') names.push(bind);
  return new Set(names.map((name) => `${name}:${origin.port}`.toLowerCase()));
}

/**
 * The catcher holds live sign-in links, so it answers only requests addressed to itself: another Host
 * (a DNS-rebinding page: evil.example resolving to 127.0.0.1) gets 421. Calls that change the store are
 * refused (403) when a browser says they come from another site (Origin or Sec-Fetch-Site), so a page
 * elsewhere cannot empty it with a plain form; the catcher's own page and clients without Origin (tests,
 * curl) are unaffected.
 */
export function mailWebApp(store: MailStore, origin?: MailWebOrigin): Hono {
  const app = new Hono();
  const hosts = origin ? allowedHosts(origin) : undefined;

  if (hosts) {
    app.use('*', async (c, next) => {
      if (!hosts.has((c.req.header('host') ?? '').toLowerCase())) {
        return c.text('Misdirected request: this mail catcher answers only to its own address', 421);
      }
      await next();
    });
  }

  const crossSite = (c: Context): boolean => {
    const site = c.req.header('sec-fetch-site');
    if (site && site !== 'same-origin' && site !== 'none') return true;
    const from = c.req.header('origin');
    if (from === undefined) return false;
    try {
      return !hosts || !hosts.has(new URL(from).host.toLowerCase());
    } catch {
      return true;
    }
  };

  app.use('*', async (c, next) => {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    if (!c.res.headers.get('content-security-policy')) {
      c.header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    }
  });

  const listing = (mails: ReturnType<MailStore['list']>, start?: string, limit?: string) => {
    const { start: from, items } = page(mails, start, limit);
    return {
      total: store.size,
      unread: store.list().filter((m) => !m.Read).length,
      count: items.length,
      messages_count: mails.length,
      start: from,
      tags: [] as string[],
      messages: items.map(summary),
    };
  };

  app.get('/api/v1/messages', (c) => c.json(listing(store.list(), c.req.query('start'), c.req.query('limit'))));

  app.get('/api/v1/search', (c) => {
    const query = c.req.query('query') ?? '';
    const found = store.list().filter((m) => matches(detail(m), query));
    return c.json(listing(found, c.req.query('start'), c.req.query('limit')));
  });

  app.delete('/api/v1/messages', async (c) => {
    if (crossSite(c)) return c.text('Forbidden: cross-site request', 403);
    let ids: string[] | undefined;
    const text = await c.req.text();
    if (text.trim()) {
      try {
        const body = JSON.parse(text) as { IDs?: unknown };
        if (Array.isArray(body.IDs) && body.IDs.length) ids = body.IDs.map(String);
      } catch {
        return c.text('Invalid JSON body: send {"IDs": [...]} or nothing to delete everything', 400);
      }
    }
    await store.remove(ids);
    return c.text('ok');
  });

  const find = (id: string) => (id === 'latest' ? store.list()[0] : store.get(id));

  app.get('/api/v1/message/:id', async (c) => {
    const m = find(c.req.param('id'));
    if (!m) return c.text('Message not found', 404);
    // Opening a message marks it read, as in Mailpit.
    await store.markRead(m.ID);
    return c.json(detail(m));
  });

  app.get('/api/v1/message/:id/headers', (c) => {
    const m = find(c.req.param('id'));
    return m ? c.json(m.Headers) : c.text('Message not found', 404);
  });

  app.get('/api/v1/message/:id/raw', async (c) => {
    const m = find(c.req.param('id'));
    const raw = m && (await store.raw(m.ID));
    if (!raw) return c.text('Message not found', 404);
    return c.body(new Uint8Array(raw), 200, { 'Content-Type': 'text/plain; charset=utf-8' });
  });

  app.get('/livez', (c) => c.text('ok'));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.get('/', (c) => c.html(listPage(store.list()), 200, { 'Content-Security-Policy': PAGE_CSP }));

  app.get('/view/:id', async (c) => {
    const m = find(c.req.param('id'));
    if (!m) return c.html(notFoundPage(), 404, { 'Content-Security-Policy': PAGE_CSP });
    await store.markRead(m.ID);
    return c.html(messagePage(m), 200, { 'Content-Security-Policy': PAGE_CSP });
  });

  app.post('/delete-all', async (c) => {
    if (crossSite(c)) return c.text('Forbidden: cross-site request', 403);
    await store.remove();
    return c.redirect('/', 303);
  });

  app.notFound((c) => c.text('Not found', 404));
  return app;
}
