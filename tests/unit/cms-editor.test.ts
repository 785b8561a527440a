import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminMetaPolicy, adminPolicy } from '../../integrations/admin-headers.ts';
import { buildEditor } from '../../integrations/cms-admin.ts';
import { cmsOptionsFromEnv } from '../../integrations/cms-config.ts';
import { writeHostHeaders } from '../../integrations/headers.ts';
import { headersForPath, metaPolicy, parseHeadersFile } from '../../integrations/security-headers.ts';
import { checkEditorBuild, checkSiteHasNoEditor } from '../../scripts/lib/cms-check.ts';

// The production editor is built apart from the site (`node scripts/cms.ts build` → dist-cms/) for an origin
// of its own; the site's build holds no editor and allows no 'unsafe-eval'.

const work = mkdtempSync(join(tmpdir(), 'cms-editor-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const production = { CMS_GITHUB_REPO: 'owner/site', CMS_AUTH_URL: 'https://auth.example.com/' };
const configOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.yml'), 'utf8').replace(/^#.*\n/, ''));
const rulesOf = (dir: string) => parseHeadersFile(readFileSync(join(dir, '_headers'), 'utf8'));

describe('the editor’s build (dist-cms/)', () => {
  const dir = join(work, 'dist-cms');
  beforeAll(async () => {
    await buildEditor(dir, production);
  }, 60_000);

  it('gives every path the editor’s policy, not only / (a host may serve /index.html itself)', () => {
    const rules = rulesOf(dir);
    for (const path of ['/', '/index.html', '/config.yml', '/decap-cms.js', '/preview.css', '/any/other/path']) {
      const sent = headersForPath(rules, path);
      expect(sent.get('Content-Security-Policy'), path).toBe(adminPolicy());
      expect(sent.get('X-Robots-Tag'), path).toBe('noindex, nofollow');
      expect(sent.get('X-Frame-Options'), path).toBe('DENY');
      expect(sent.get('Strict-Transport-Security'), path).toMatch(/^max-age=/);
    }
    // And the page itself carries the policy (all but frame-ancestors, which a <meta> cannot say).
    expect(metaPolicy(readFileSync(join(dir, 'index.html'), 'utf8'))).toBe(adminMetaPolicy());
    expect(adminMetaPolicy()).not.toContain('frame-ancestors');
    const nginx = readFileSync(join(dir, '_headers.nginx.conf'), 'utf8');
    expect(nginx).toContain(`location / {\n`);
    expect(nginx).toContain(`    add_header Content-Security-Policy "${adminPolicy()}" always;`);
    expect(readFileSync(join(dir, 'robots.txt'), 'utf8')).toBe('User-agent: *\nDisallow: /\n');
    expect(checkEditorBuild(dir)).toEqual([]);
  });

  it('signs in through GitHub with the narrow scope and the OAuth proxy, with no local backend', () => {
    const config = configOf(dir);
    expect(config.backend).toMatchObject({
      name: 'github',
      repo: 'owner/site',
      auth_scope: 'public_repo',
      base_url: 'https://auth.example.com',
    });
    expect(config).not.toHaveProperty('local_backend');
  });

  it('previews in the site’s stylesheet', () => {
    const css = readFileSync(join(dir, 'preview.css'), 'utf8');
    expect(css).toContain('--color-navy-950');
    // Classes of the preview's templates (integrations/cms-admin.ts: a page's lead and prose).
    expect(css).toContain('.text-muted');
    expect(css).toContain('.text-balance');
  });

  it('names what is wrong with an editor built without its settings or served without its headers', () => {
    const bare = join(work, 'bare');
    mkdirSync(bare);
    writeFileSync(join(bare, 'index.html'), '<!doctype html><title>x</title>');
    writeFileSync(
      join(bare, 'config.yml'),
      `# x\n${JSON.stringify({ backend: { name: 'github', repo: 'OWNER/REPOSITORY' }, local_backend: { url: 'x' } })}`,
    );
    writeFileSync(join(bare, '_headers'), "/\n  Content-Security-Policy: default-src 'self'\n");
    expect(checkEditorBuild(bare)).toEqual([
      `${bare}/config.yml names no GitHub repository: build with CMS_GITHUB_REPO=owner/name`,
      `${bare}/config.yml saves through a local backend: build again`,
      `${bare}/config.yml sets no auth_scope, so GitHub grants repo (every repository): build again`,
      `${bare}/index.html lacks the editor's <meta> policy: build again`,
      `${bare}/_headers gives /, /index.html, /config.yml, /decap-cms.js, /preview.css not the editor's policy: build again`,
      `${bare}/_headers.nginx.conf is missing: build again`,
    ]);
  });

  it('refuses to build into the project itself', async () => {
    await expect(buildEditor('.', production)).rejects.toThrow('. holds the project: build the editor elsewhere');
    expect(existsSync('package.json')).toBe(true);
  });
});

describe('the editor’s settings from the environment', () => {
  it.each([
    [{}, 'public_repo'],
    [{ CMS_AUTH_SCOPE: 'public_repo' }, 'public_repo'],
    [{ CMS_AUTH_SCOPE: 'repo' }, 'repo'],
  ])('%o asks GitHub for %s', (env, scope) => {
    expect(cmsOptionsFromEnv({ CMS_GITHUB_REPO: 'owner/site', ...env }).authScope).toBe(scope);
  });

  it.each([
    [{ CMS_AUTH_SCOPE: 'admin:org' }, 'CMS_AUTH_SCOPE is "admin:org": set public_repo (a public repository) or repo'],
    [
      { CMS_AUTH_URL: 'http://auth.example.com' },
      'CMS_AUTH_URL is "http://auth.example.com": the editor needs an https',
    ],
    [{ CMS_AUTH_URL: 'auth.example.com' }, 'CMS_AUTH_URL is "auth.example.com", not a URL'],
  ])('refuses %o', (env, message) => {
    expect(() => cmsOptionsFromEnv({ CMS_GITHUB_REPO: 'owner/site', ...env })).toThrow(message);
  });

  it('shows the live site’s address from SITE_URL', () => {
    expect(cmsOptionsFromEnv({ CMS_GITHUB_REPO: 'o/s', SITE_URL: 'https://signalone.example' }).siteUrl).toBe(
      'https://signalone.example',
    );
  });
});

describe('the site’s build holds no editor', () => {
  function site(name: string) {
    const dir = join(work, name);
    mkdirSync(dir);
    const meta = `<meta http-equiv="content-security-policy" content="script-src 'self'; style-src 'self'">`;
    writeFileSync(join(dir, 'index.html'), `<!doctype html><head>${meta}</head>`);
    return dir;
  }

  it('passes a site without admin/', () => {
    const dir = site('site-ok');
    writeHostHeaders(dir, 'https://abcdefghijklmnopqrst.supabase.co');
    expect(readFileSync(join(dir, '_headers'), 'utf8')).not.toContain('unsafe-eval');
    expect(checkSiteHasNoEditor(dir)).toEqual([]);
  });
});

// nginx is no dependency of the project; where it is installed (Debian: apt-get install nginx), it checks the include.
const nginx = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

describe.skipIf(!nginx)('the editor’s nginx include', () => {
  it('is accepted by nginx -t inside a server block', async () => {
    const dir = join(work, 'nginx');
    await buildEditor(join(dir, 'dist-cms'), production);
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${dir}/${t};`);
    writeFileSync(
      join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid; error_log ${dir}/error.log; events {}
      http { access_log off; ${temp.join(' ')}
        server { listen 127.0.0.1:1; root ${dir}/dist-cms; include ${dir}/dist-cms/_headers.nginx.conf; } }`,
    );
    const test = spawnSync(nginx as string, ['-t', '-c', join(dir, 'nginx.conf'), '-p', dir], { encoding: 'utf8' });
    expect(test.stderr).toContain('test is successful');
    expect(test.status).toBe(0);
  }, 60_000);
});
