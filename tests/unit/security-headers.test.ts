import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeHostHeaders } from '../../integrations/headers.ts';
import {
  addSources,
  headerRules,
  headersForPath,
  metaPolicy,
  pagePolicy,
  parseHeadersFile,
  parsePolicy,
  pathMatches,
  renderHeadersFile,
  renderNginx,
} from '../../integrations/security-headers.ts';
import { TRADINGVIEW_FRAME_ORIGIN } from '../../src/lib/chart-widget.ts';
import { allowChartWidget, allowTradingViewChart } from '../../src/lib/csp.ts';

const hashes = "'sha256-AAAA' 'sha256-BBBB'";
const plainMeta = `script-src 'self' ${hashes}; style-src 'self' 'sha256-CCCC';`;
const chartMeta = `frame-src https://www.tradingview-widget.com; script-src 'self' https://s3.tradingview.com/external-embedding/embed-widget-advanced-chart.js ${hashes}; style-src 'self' 'sha256-CCCC';`;
const options = { supabaseUrl: 'https://abcdefghijklmnopqrst.supabase.co/' };

describe('metaPolicy', () => {
  it.each([
    [`<meta http-equiv="content-security-policy" content="${plainMeta}">`, plainMeta.trim()],
    [`<meta content="script-src &#39;self&#39;" http-equiv="Content-Security-Policy">`, "script-src 'self'"],
    ['<meta charset="utf-8"><title>x</title>', null],
  ])('%s', (html, policy) => {
    expect(metaPolicy(html)).toBe(policy);
  });
});

describe('pagePolicy', () => {
  const plain = parsePolicy(pagePolicy(plainMeta, options));
  const chart = parsePolicy(pagePolicy(chartMeta, options));

  it('keeps the meta hashes for scripts and styles and adds what a meta cannot say', () => {
    expect(plain.get('script-src')).toEqual(["'self'", "'sha256-AAAA'", "'sha256-BBBB'"]);
    expect(plain.get('style-src')).toEqual(["'self'", "'sha256-CCCC'"]);
    expect(plain.get('frame-ancestors')).toEqual(["'none'"]);
    expect(plain.get('default-src')).toEqual(["'self'"]);
    expect(plain.get('object-src')).toEqual(["'none'"]);
  });

  it('allows the Supabase API origin and its Realtime WebSocket origin in connect-src', () => {
    expect(plain.get('connect-src')).toEqual([
      "'self'",
      'https://abcdefghijklmnopqrst.supabase.co',
      'wss://abcdefghijklmnopqrst.supabase.co',
    ]);
  });

  it('names the chart widget only on the page whose meta does', () => {
    expect(plain.get('frame-src')).toEqual(["'none'"]);
    expect(plain.get('script-src')?.join(' ')).not.toContain('tradingview');
    expect(chart.get('frame-src')).toEqual(['https://www.tradingview-widget.com']);
    expect(chart.get('script-src')).toContain(
      'https://s3.tradingview.com/external-embedding/embed-widget-advanced-chart.js',
    );
  });

  it.each([
    ["script-src 'self' 'unsafe-inline'", "'unsafe-inline' in script-src"],
    ["script-src 'self'; style-src 'self' 'unsafe-inline'", "'unsafe-inline' in style-src"],
    ["script-src 'self'; style-src-attr 'unsafe-hashes' 'sha256-x'", "'unsafe-hashes' in style-src-attr"],
    ["style-src 'self'", 'no script-src'],
  ])('refuses %s', (meta, message) => {
    expect(() => pagePolicy(meta, options)).toThrow(message);
  });
});

describe('headerRules', () => {
  const rules = headerRules(
    [
      { route: '/', meta: plainMeta },
      { route: '/trading-ideas', meta: chartMeta },
      { route: '/404.html', meta: plainMeta },
    ],
    options,
  );

  it('gives a page its CSP with and without the trailing slash', () => {
    for (const path of ['/trading-ideas', '/trading-ideas/']) {
      expect(headersForPath(rules, path).get('Content-Security-Policy')).toContain('frame-src https://www.tradingview');
    }
    expect(headersForPath(rules, '/').get('Content-Security-Policy')).toContain("frame-src 'none'");
  });

  it('sends the common headers everywhere, and no header name twice on any path', () => {
    for (const path of ['/', '/trading-ideas/', '/404.html', '/_astro/app.js', '/no-such-page']) {
      const headers = headersForPath(rules, path);
      expect(headers.get('X-Content-Type-Options')).toBe('nosniff');
      expect(headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin');
      expect(headers.get('Strict-Transport-Security')).toMatch(/^max-age=\d+/);
      expect(headers.get('Permissions-Policy')).toContain('camera=()');
      const names = rules.filter((r) => pathMatches(r.path, path)).flatMap((r) => r.headers.map(([name]) => name));
      expect(new Set(names).size).toBe(names.length);
    }
    expect(headersForPath(rules, '/_astro/app.js').get('Cache-Control')).toContain('immutable');
    expect(headersForPath(rules, '/').get('Cache-Control')).toBeUndefined();
  });

  it('names the page that allows inline code', () => {
    expect(() => headerRules([{ route: '/bad', meta: "script-src 'unsafe-inline'" }], options)).toThrow(/^\/bad: /);
  });

  it('survives the _headers file round trip', () => {
    expect(parseHeadersFile(renderHeadersFile(rules))).toEqual(rules);
  });

  it('writes an nginx include whose every location repeats the common headers', () => {
    const conf = renderNginx(rules);
    expect(conf).toContain('location = /trading-ideas/index.html {');
    expect(conf).toContain('location = /index.html {');
    expect(conf).toContain('location = /404.html {');
    expect(conf).toContain('error_page 404 /404.html;');
    const blocks = conf.split(/\nlocation /).slice(1);
    for (const block of blocks.filter((b) => b.includes('add_header'))) {
      expect(block).toContain('add_header X-Content-Type-Options "nosniff" always;');
    }
    expect(conf).toMatch(
      /location = \/trading-ideas\/index.html \{[^}]*frame-src https:\/\/www.tradingview-widget.com/,
    );
  });
});

describe('addSources', () => {
  it('adds to one directive and keeps the others', () => {
    const csp = addSources("default-src 'self'; img-src 'self' https:", 'img-src', ['http://127.0.0.1:9']);
    expect(csp).toBe("default-src 'self'; img-src 'self' https: http://127.0.0.1:9");
  });
});

describe('writeHostHeaders', () => {
  const dist = mkdtempSync(join(tmpdir(), 'headers-'));
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  it('writes _headers and the nginx include from the built pages', () => {
    mkdirSync(join(dist, 'faq'));
    writeFileSync(join(dist, 'index.html'), `<meta http-equiv="content-security-policy" content="${plainMeta}">`);
    writeFileSync(
      join(dist, 'faq', 'index.html'),
      `<meta http-equiv="content-security-policy" content="${plainMeta}">`,
    );
    writeHostHeaders(dist, options.supabaseUrl);
    const rules = parseHeadersFile(readFileSync(join(dist, '_headers'), 'utf8'));
    expect(rules.map((r) => r.path)).toEqual(['/*', '/_astro/*', '/', '/faq', '/faq/']);
    expect(readFileSync(join(dist, '_headers.nginx.conf'), 'utf8')).toContain('location = /faq/index.html {');
  });

  it('stops on a page without a CSP meta', () => {
    writeFileSync(join(dist, 'plain.html'), '<title>no policy</title>');
    expect(() => writeHostHeaders(dist, options.supabaseUrl)).toThrow(
      'pages without a CSP <meta> (security.csp in astro.config.mjs): /plain.html',
    );
  });
});

// nginx is no dependency of the project; where it is installed (Debian: apt-get install nginx), it checks the include.
const nginx = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

describe.skipIf(!nginx)('the nginx include', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nginx-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is accepted by nginx -t inside a server block', () => {
    const rules = headerRules(
      [
        { route: '/', meta: plainMeta },
        { route: '/trading-ideas', meta: chartMeta },
        { route: '/404.html', meta: plainMeta },
      ],
      options,
    );
    writeFileSync(join(dir, 'headers.conf'), renderNginx(rules));
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${dir}/${t};`);
    writeFileSync(
      join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid; error_log ${dir}/error.log; events {}
      http { access_log off; ${temp.join(' ')}
        server { listen 127.0.0.1:1; root ${dir}; include ${dir}/headers.conf; } }`,
    );
    const test = spawnSync(nginx as string, ['-t', '-c', join(dir, 'nginx.conf'), '-p', dir], { encoding: 'utf8' });
    expect(test.stderr).toContain('test is successful');
    expect(test.status).toBe(0);
  });
});

describe('the chart widget on /trading-ideas', () => {
  /** The policy Astro writes for /trading-ideas: what the page's allowTradingViewChart names, then the hashes. */
  function chartPageMeta(): string {
    const resources: string[] = [];
    const directives: string[] = [];
    allowTradingViewChart({
      csp: { insertScriptResource: (r) => resources.push(r), insertDirective: (d) => directives.push(d) },
    });
    return `${directives.join('; ')}; script-src ${resources.join(' ')} ${hashes}; style-src 'self' 'sha256-CCCC';`;
  }

  it("the generated header allows the widget's one script URL, not the whole s3.tradingview.com", () => {
    const rules = parseHeadersFile(
      renderHeadersFile(headerRules([{ route: '/trading-ideas', meta: chartPageMeta() }], options)),
    );
    const header = parsePolicy(headersForPath(rules, '/trading-ideas/').get('Content-Security-Policy') ?? '');
    expect(header.get('script-src')).toEqual([
      "'self'",
      'https://s3.tradingview.com/external-embedding/embed-widget-advanced-chart.js',
      "'sha256-AAAA'",
      "'sha256-BBBB'",
    ]);
    // No source that would allow other scripts of that host: not its origin, nor a path ending in '/'.
    for (const source of header.get('script-src') ?? []) {
      expect(source).not.toMatch(/^https:\/\/[^/]+\/?$|\/$/);
    }
    expect(header.get('frame-src')).toEqual(['https://www.tradingview-widget.com']);
  });

  it.each([
    'https://s3.tradingview.com',
    'https://s3.tradingview.com/',
    'https://s3.tradingview.com/external-embedding/',
    'http://s3.tradingview.com/external-embedding/embed-widget-advanced-chart.js',
    'https://s3.tradingview.com/external-embedding/embed-widget-advanced-chart.js?v=1',
  ])('refuses %s, which is not one exact https script URL', (url) => {
    expect(() => allowChartWidget({}, url, TRADINGVIEW_FRAME_ORIGIN)).toThrow('is not the exact https URL');
  });
});
