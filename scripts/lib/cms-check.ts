// Checks before publishing: the editor's build (dist-cms/) is ready for its own origin, and the site's build
// (dist/) holds no editor and allows no 'unsafe-eval'. One sentence per problem; none when all is well.
// `node scripts/cms.ts build` prints them; `node scripts/lib/cms-check.ts [dist-cms] [dist]` by hand.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminMetaPolicy, adminPolicy } from '../../integrations/admin-headers.ts';
import {
  HEADERS_FILE,
  headersForPath,
  metaPolicy,
  NGINX_FILE,
  parseHeadersFile,
} from '../../integrations/security-headers.ts';

/** Paths a host serves the editor's files on; each must carry its policy. */
const EDITOR_PATHS = ['/', '/index.html', '/config.yml', '/decap-cms.js', '/preview.css'];

function readConfig(file: string): Record<string, unknown> | undefined {
  try {
    const json = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !line.startsWith('#'))
      .join('\n');
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** The editor's build in `dir`: names a repository, asks GitHub for a narrow scope, every path has its policy. */
export function checkEditorBuild(dir: string): string[] {
  if (!existsSync(join(dir, 'index.html')) || !existsSync(join(dir, 'config.yml')))
    return [`${dir} holds no editor: run node scripts/cms.ts build`];
  const problems: string[] = [];
  const config = readConfig(join(dir, 'config.yml'));
  const backend = (config?.backend ?? {}) as Record<string, unknown>;
  if (!config) problems.push(`${dir}/config.yml cannot be read: build the editor again`);
  else {
    if (backend.repo === 'OWNER/REPOSITORY')
      problems.push(`${dir}/config.yml names no GitHub repository: build with CMS_GITHUB_REPO=owner/name`);
    if ('local_backend' in config) problems.push(`${dir}/config.yml saves through a local backend: build again`);
    if (backend.auth_scope !== 'public_repo' && backend.auth_scope !== 'repo')
      problems.push(`${dir}/config.yml sets no auth_scope, so GitHub grants repo (every repository): build again`);
  }
  const meta = metaPolicy(readFileSync(join(dir, 'index.html'), 'utf8'));
  if (meta !== adminMetaPolicy()) problems.push(`${dir}/index.html lacks the editor's <meta> policy: build again`);
  const headers = join(dir, HEADERS_FILE);
  const rules = existsSync(headers) ? parseHeadersFile(readFileSync(headers, 'utf8')) : [];
  const uncovered = EDITOR_PATHS.filter((path) => {
    const sent = headersForPath(rules, path);
    return sent.get('Content-Security-Policy') !== adminPolicy() || !sent.get('X-Robots-Tag')?.includes('noindex');
  });
  if (uncovered.length)
    problems.push(`${dir}/${HEADERS_FILE} gives ${uncovered.join(', ')} not the editor's policy: build again`);
  if (!existsSync(join(dir, NGINX_FILE))) problems.push(`${dir}/${NGINX_FILE} is missing: build again`);
  return problems;
}

/** The site's build in `dist`: no editor inside it, and no header rule allowing 'unsafe-eval'. */
export function checkSiteHasNoEditor(dist: string): string[] {
  const problems: string[] = [];
  if (existsSync(join(dist, 'admin')))
    problems.push(
      `${dist}/admin/ holds a content editor: it belongs on an origin of its own (node scripts/cms.ts build); build the site again`,
    );
  const headers = join(dist, HEADERS_FILE);
  if (existsSync(headers)) {
    const unsafe = parseHeadersFile(readFileSync(headers, 'utf8'))
      .filter((rule) => rule.headers.some(([, value]) => value.includes("'unsafe-eval'")))
      .map((rule) => rule.path);
    if (unsafe.length) problems.push(`${dist}/${HEADERS_FILE} allows 'unsafe-eval' on ${unsafe.join(', ')}`);
  }
  return problems;
}

if (import.meta.main) {
  const [editor = 'dist-cms', site = 'dist'] = process.argv.slice(2);
  const problems = [...checkEditorBuild(editor), ...checkSiteHasNoEditor(site)];
  for (const problem of problems) console.log(`✗ ${problem}`);
  console.log(problems.length ? `cms check: ${problems.length} problems` : `cms check: ok (${editor}/, ${site}/)`);
  process.exitCode = problems.length ? 1 : 0;
}
