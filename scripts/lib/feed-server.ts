// Serves tests/fixtures/feeds over HTTP on 127.0.0.1 for the news tests, the bench and Lighthouse:
// /feeds/<file> answers the fixture with {{images}} pointing at /images/ here, /images/missing-image.png is a
// 404 and /images/refused-image.png drops the connection (unless brokenImages is false), any other image is a
// small PNG. POST /down makes every feed answer 500 until POST /up; POST /down/<file> takes one feed down;
// POST /swap/<file>/<other> serves the fixture <other> at /feeds/<file> (POST /up undoes every swap too).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';

export interface FeedServer {
  origin: string;
  /** The URL of a fixture file, e.g. feedUrl('business.xml'). */
  feedUrl(file: string): string;
  close(): Promise<void>;
}

export interface FeedServerOptions {
  dir?: string;
  port?: number;
  /** Where {{images}} points; default this server's /images. */
  imagesOrigin?: string;
  /** false: /images/missing-image.png is served like any other picture (default true: it is a 404). */
  brokenImages?: boolean;
}

const TYPES: Record<string, string> = {
  xml: 'application/rss+xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
};

export function startFeedServer(options: FeedServerOptions = {}): Promise<FeedServer> {
  const dir = resolve(options.dir ?? 'tests/fixtures/feeds');
  const png = readFileSync(join(dir, 'thumb.png'));
  let down = false;
  const downFeeds = new Set<string>();
  const swaps = new Map<string, string>();
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'POST') {
      const one = /^\/down\/([\w-]+\.(?:xml|atom))$/.exec(path)?.[1];
      const swap = /^\/swap\/([\w-]+\.(?:xml|atom))\/([\w-]+\.(?:xml|atom))$/.exec(path);
      if (path === '/down') down = true;
      else if (path === '/up') {
        down = false;
        downFeeds.clear();
        swaps.clear();
      } else if (one) downFeeds.add(one);
      else if (swap) swaps.set(swap[1], swap[2]);
      if (path === '/down' || path === '/up' || one || swap) {
        res.writeHead(204).end();
        return;
      }
    }
    const feed = /^\/feeds\/([\w-]+\.(xml|atom))$/.exec(path);
    if (feed) {
      if (down || downFeeds.has(feed[1])) {
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('fixture feeds are down');
        return;
      }
      let text: string;
      try {
        text = readFileSync(join(dir, swaps.get(feed[1]) ?? feed[1]), 'utf8');
      } catch {
        res.writeHead(404).end();
        return;
      }
      const images = `${options.imagesOrigin ?? origin}/images`;
      res.writeHead(200, { 'Content-Type': TYPES[feed[2]] }).end(text.replaceAll('{{images}}', images));
      return;
    }
    const brokenImages = options.brokenImages !== false;
    if (brokenImages && path === '/images/refused-image.png') {
      req.socket.destroy();
      return;
    }
    const broken = brokenImages && path === '/images/missing-image.png';
    if (/^\/images\/[\w-]+\.png$/.test(path) && !broken) {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Cache-Control': 'max-age=3600' }).end(png);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  });
  return new Promise((done) => {
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const address = server.address();
      origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      done({
        origin,
        feedUrl: (file) => `${origin}/feeds/${file}`,
        close: () =>
          new Promise<void>((closed) => {
            server.closeAllConnections();
            server.close(() => closed());
          }),
      });
    });
  });
}
