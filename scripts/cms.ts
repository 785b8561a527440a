// The content editor (Decap CMS, integrations/cms-admin.ts).
//
// `npm run cms`: edit the content in a browser on this machine. Starts the Astro dev server with a new random
// token; it serves the editor at /admin/ and, behind a gate (integrations/cms-gateway.ts), Decap's file-system
// backend, which reads and writes the Markdown files under content/ of this working copy (no git commit).
// Only a page of http://127.0.0.1:<PORT> or http://localhost:<PORT> that carries the token reaches it. A page
// re-renders as soon as its file changes. Then open http://127.0.0.1:<PORT>/admin/ (PORT: 4321).
// `--root <dir>` edits another copy of the project (the e2e test runs it on a throwaway copy).
//
// `node scripts/cms.ts build [--out dist-cms]`: the production editor for a static host of its own
// (cms.<domain>), with its header files, from CMS_GITHUB_REPO and the rest (docs/editing.md); prints what
// scripts/lib/cms-check.ts finds wrong with it.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { buildEditor, EDITOR_DIR } from '../integrations/cms-admin.ts';
import { newToken } from '../integrations/cms-gateway.ts';
import { decapBundle } from '../integrations/decap-bundle.ts';
import { checkEditorBuild } from './lib/cms-check.ts';

export interface CmsProcesses {
  siteUrl: string;
  stop(): Promise<void>;
}

function waitFor(url: string, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((done, fail) => {
    const attempt = async () => {
      if (child.exitCode !== null) return fail(new Error(`the dev server exited (${child.exitCode})`));
      try {
        const res = await fetch(url);
        if (res.status === 200) return done();
      } catch {}
      if (Date.now() > deadline) return fail(new Error(`${url} did not answer in ${timeoutMs / 1000} s`));
      setTimeout(attempt, 300);
    };
    attempt();
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

/** Starts the dev server with the editor for the project in `root`; resolves once the editor answers. */
export async function startCms(options: { root?: string; port?: number; quiet?: boolean } = {}): Promise<CmsProcesses> {
  const root = resolve(options.root ?? '.');
  const port = options.port ?? Number(process.env.PORT || 4321);
  const siteUrl = `http://127.0.0.1:${port}`;
  // Decap's bundle, fetched here the first time (the dev server finds it kept), so a failure says why up front.
  await decapBundle({ root });
  const site = spawn(
    process.execPath,
    [resolve(root, 'node_modules/astro/bin/astro.mjs'), 'dev', '--host', '127.0.0.1', '--port', String(port)],
    {
      cwd: root,
      stdio: options.quiet ? 'ignore' : 'inherit',
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', PORT: String(port), CMS_LOCAL_TOKEN: newToken() },
    },
  );
  const stop = () => stopChild(site);
  try {
    await waitFor(`${siteUrl}/admin/config.yml`, 120_000, site);
  } catch (err) {
    await stop();
    throw err;
  }
  return { siteUrl, stop };
}

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};

if (import.meta.main && process.argv[2] === 'build') {
  const build = await buildEditor(option('--out') ?? EDITOR_DIR);
  const { repo, branch, authScope, authUrl } = build.options;
  console.log(`${build.outDir}: Decap CMS (${build.decapFiles} files) for ${repo} (${branch}), scope ${authScope}`);
  console.log(`  sign-in through ${authUrl ?? 'Netlify (https://api.netlify.com)'}; deploy it on an origin of its own`);
  const problems = checkEditorBuild(build.outDir);
  for (const problem of problems) console.log(`✗ ${problem}`);
  process.exitCode = problems.length ? 1 : 0;
} else if (import.meta.main) {
  const root = resolve(option('--root') ?? '.');
  const cms = await startCms({ root });
  console.log(`\nContent editor: ${cms.siteUrl}/admin/  (saves into ${resolve(root, 'content')}; Ctrl+C stops)`);
  console.log(`Site: ${cms.siteUrl}/  (a saved page shows on reload)`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      await cms.stop();
      process.exit(0);
    });
  }
}
