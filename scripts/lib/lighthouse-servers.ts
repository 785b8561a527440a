// What the pages `npm run lighthouse` measures talk to, in a process of its own: the fixture feed server, a fresh
// local stack (temporary DATA_DIR) and the site server over the Lighthouse build. scripts/lighthouse.ts forks it
// and lowers its scheduling priority: on a phone the servers are elsewhere, here they share the cores with the
// browser, and a stale news answer refreshed in the background (fetch, parse, score 20 articles) during a load
// was CPU the page's main thread waited for. It tells its parent `ready` once all three answer, and closes them
// on `stop` (or when the parent goes).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, startStack } from 'local-supabase';
import { freePort } from 'local-supabase/testing';
import { startFeedServer } from './feed-server.ts';
import { startSiteServer } from './serve.ts';

export interface LighthouseServersOptions {
  /** The built site to serve. */
  dir: string;
  ports: { site: number; api: number };
  /** The fixture the investing feed reads (tests/fixtures/feeds). */
  investingFeed: string;
  /** Secrets the stack's functions get (signals-ingest's, so that the ledger history can be posted). */
  functionSecrets: Record<string, string>;
}

export type LighthouseServersMessage = { ready: true } | { failed: string };

async function main(options: LighthouseServersOptions): Promise<() => Promise<void>> {
  const work = mkdtempSync(join(tmpdir(), 'signals-lighthouse-'));
  const siteUrl = `http://127.0.0.1:${options.ports.site}`;
  // Every fixture picture loads: a picture that fails logs a console error in the browser (Best Practices),
  // which says nothing about the page; the e2e run covers broken pictures.
  const feeds = await startFeedServer({ brokenImages: false });
  const stack = await startStack(
    loadConfig(
      {
        ...process.env,
        DATA_DIR: join(work, 'data'),
        SITE_URL: siteUrl,
        PORT: String(options.ports.site),
        DATABASE_URL: '',
        NEWS_FEED_URLS: ['business.xml', 'markets.atom', 'headlines.xml'].map((f) => feeds.feedUrl(f)).join(','),
        INVESTING_FEED_URL: feeds.feedUrl(options.investingFeed),
      },
      {
        ports: { api: options.ports.api, db: await freePort(), mailWeb: await freePort(), smtp: await freePort() },
        functionSecrets: options.functionSecrets,
      },
    ),
  );
  const site = await startSiteServer({ dir: options.dir, port: options.ports.site, imageOrigins: [feeds.origin] });
  return async () => {
    await new Promise<void>((done) => site.close(() => done()));
    await stack.stop();
    await feeds.close();
    rmSync(work, { recursive: true, force: true });
  };
}

if (import.meta.main && process.send) {
  const send = (message: LighthouseServersMessage) => process.send?.(message);
  let close: (() => Promise<void>) | undefined;
  const stop = async () => {
    await close?.();
    process.exit(0);
  };
  process.on('message', (message) => message === 'stop' && void stop());
  process.on('disconnect', () => void stop());
  try {
    close = await main(JSON.parse(process.argv[2]) as LighthouseServersOptions);
    send({ ready: true });
  } catch (err) {
    send({ failed: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    await close?.();
    process.exit(1);
  }
}
