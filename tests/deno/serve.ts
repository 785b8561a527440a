// Serves Edge Functions with Deno: each function's own index.ts (`Deno.serve(createHandler())`) in its own
// Deno process, as hosted Supabase runs it, with the import map it deploys with and only the variables it
// is given. Deno.serve listens where DENO_SERVE_ADDRESS says: port 0 on 127.0.0.1, so Deno itself takes a free
// port (no window between choosing one and binding it) and prints it in its "Listening on" line.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { denoBinary, denoEnv, entryOf, functionNames, IMPORT_MAP } from '../../scripts/deno.ts';

export interface DenoFunctions {
  /** Where the function listens, e.g. http://127.0.0.1:43121; it answers any path, as behind the gateway. */
  origin(name: string): string;
  /** What the function's process printed so far (for failure messages). */
  output(name: string): string;
  /** CPU time the function's process has used so far, in ms (Linux: /proc), or undefined elsewhere. */
  cpuMs(name: string): number | undefined;
  stop(): Promise<void>;
}

interface Served {
  child: ChildProcess;
  origin: string;
  output: string[];
}

/**
 * Permissions: network and environment only, nothing else the functions need (nodemailer asks for the host
 * name for its SMTP greeting, and without `sys` permission falls back to [127.0.0.1] on its own). The heap is
 * capped at hosted Supabase's 256 MB.
 */
const DENO_RUN_FLAGS = [
  'run',
  '--frozen',
  '--no-prompt',
  '--allow-net',
  '--allow-env',
  '--v8-flags=--max-old-space-size=256',
];

const LISTENING = /Listening on (http:\/\/127\.0\.0\.1:\d+)\//;

function serveOne(name: string, env: Record<string, string | undefined>): Promise<Served> {
  const child = spawn(denoBinary(), [...DENO_RUN_FLAGS, '--config', IMPORT_MAP, entryOf(name)], {
    env: denoEnv({ ...env, DENO_SERVE_ADDRESS: 'tcp:127.0.0.1:0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not listen within 150 s under Deno:\n${output.join('')}`));
    }, 150_000);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      const listening = LISTENING.exec(output.join(''));
      if (listening) {
        clearTimeout(timer);
        resolve({ child, origin: listening[1] as string, output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) under Deno before listening:\n${output.join('')}`));
    });
  });
}

/** utime + stime of a process (all its threads), from /proc/<pid>/stat, in ms (the kernel counts 100 ticks/s). */
function cpuMs(pid: number | undefined): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(stat)) return undefined;
  // The fields after the command name, which is in parentheses and may hold spaces: utime, stime are 14, 15.
  const fields = readFileSync(stat, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Starts every function (or the named ones) under Deno at once, with `env` as its whole environment. */
export async function serveWithDeno(
  env: Record<string, string | undefined>,
  names: string[] = functionNames(),
): Promise<DenoFunctions> {
  const started = await Promise.allSettled(names.map((name) => serveOne(name, env)));
  const servers = new Map<string, Served>();
  started.forEach((result, i) => {
    if (result.status === 'fulfilled') servers.set(names[i] as string, result.value);
  });
  const stop = () =>
    Promise.all(
      [...servers.values()].map(
        ({ child }) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      ),
    ).then(() => undefined);
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const get = (name: string) => {
    const served = servers.get(name);
    if (!served) throw new Error(`${name} is not served under Deno`);
    return served;
  };
  return {
    origin: (name) => get(name).origin,
    output: (name) => get(name).output.join(''),
    cpuMs: (name) => cpuMs(get(name).child.pid),
    stop,
  };
}
