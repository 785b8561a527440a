// Work that may finish after the response: EdgeRuntime.waitUntil on Supabase, a detached promise elsewhere.
interface EdgeRuntimeLike {
  waitUntil(promise: Promise<unknown>): void;
}

export function runInBackground(label: string, task: () => Promise<unknown>): void {
  const guarded = Promise.resolve()
    .then(task)
    .catch((err) => console.error(`${label} failed:`, err instanceof Error ? err.message : err));
  const runtime = (globalThis as { EdgeRuntime?: EdgeRuntimeLike }).EdgeRuntime;
  runtime?.waitUntil(guarded);
}
