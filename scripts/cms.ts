// `npm run cms`: edit the content in a browser on this machine. Starts Decap CMS's local proxy (decap-server,
// which reads and writes the Markdown files under content/ of this working copy, no git commit) and the Astro
// dev server, which serves the admin at /admin/ and re-renders a page as soon as its file changes.
// Then open http://127.0.0.1:<PORT>/admin/. Ports: PORT (the site, 4321), CMS_PROXY_PORT (the proxy, 8081).
// `--root <dir>` edits another copy of the project (the e2e test runs it on a throwaway copy).
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

export interface CmsProcesses {
  siteUrl: string;
  proxyUrl: string;
  stop(): Promise<void>;
}

function waitFor(url: string, init: RequestInit, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((done, fail) => {
    const attempt = async () => {
      try {
        const res = await fetch(url, init);
        if (res.status < 500) return done();
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

/** Starts the proxy and the dev server for the project in `root`; resolves once both answer. */
export async function startCms(
  options: { root?: string; port?: number; proxyPort?: number; quiet?: boolean } = {},
): Promise<CmsProcesses> {
  const root = resolve(options.root ?? '.');
  const port = options.port ?? Number(process.env.PORT ?? 4321);
  const proxyPort = options.proxyPort ?? Number(process.env.CMS_PROXY_PORT ?? 8081);
  const proxyUrl = `http://127.0.0.1:${proxyPort}/api/v1`;
  const siteUrl = `http://127.0.0.1:${port}`;
  const stdio = options.quiet ? 'ignore' : 'inherit';
  const env = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
  // MODE=fs: the proxy writes the files and leaves committing to the editor (git add/commit, or a pull request).
  const proxy = spawn(process.execPath, [resolve(root, 'node_modules/decap-server/dist/index.js')], {
    cwd: root,
    stdio,
    env: { ...env, MODE: 'fs', PORT: String(proxyPort), BIND_HOST: '127.0.0.1', GIT_REPO_DIRECTORY: root },
  });
  const site = spawn(
    process.execPath,
    [resolve(root, 'node_modules/astro/bin/astro.mjs'), 'dev', '--host', '127.0.0.1', '--port', String(port)],
    { cwd: root, stdio, env: { ...env, PORT: String(port), CMS_PROXY_URL: proxyUrl } },
  );
  const stop = async () => {
    await Promise.all([stopChild(proxy), stopChild(site)]);
  };
  try {
    const info = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action":"info"}' };
    await waitFor(proxyUrl, info, 30_000);
    await waitFor(`${siteUrl}/admin/config.yml`, {}, 120_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { siteUrl, proxyUrl, stop };
}

if (import.meta.main) {
  const at = process.argv.indexOf('--root');
  const root = resolve(at > 0 ? process.argv[at + 1] : '.');
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
