// How a function reads its environment: Deno.env on Supabase, an injected set of values in the Node host.
export interface Env {
  get(name: string): string | undefined;
}

interface DenoLike {
  env: { get(name: string): string | undefined };
}
interface ProcessLike {
  env: Record<string, string | undefined>;
}

/** The environment of the runtime the function runs in: Deno.env, else process.env. */
export function runtimeEnv(): Env {
  const deno = (globalThis as { Deno?: DenoLike }).Deno;
  if (deno) return { get: (name) => deno.env.get(name) };
  const proc = (globalThis as { process?: ProcessLike }).process;
  return { get: (name) => proc?.env[name] };
}

/** An environment made of the given values only (the Node host passes what Supabase would set). */
export function envFrom(values: Record<string, string | undefined>): Env {
  const copy = { ...values };
  return { get: (name) => copy[name] };
}

/** A value the function cannot run without; a clear error names it when it is missing. */
export function requireEnv(env: Env, name: string): string {
  const value = env.get(name);
  if (!value) throw new Error(`Missing environment variable ${name}`);
  return value;
}

/** RATE_LIMITS=off turns per-IP rate limits off for a run. */
export function rateLimitsEnabled(env: Env): boolean {
  return env.get('RATE_LIMITS')?.trim().toLowerCase() !== 'off';
}
