// What the Deno entries (supabase/functions/*/index.ts) use of the Deno global, for the Node type check.
// Deno itself never loads this file: it has its own types.
declare namespace Deno {
  function serve(handler: (req: Request) => Response | Promise<Response>): unknown;
  const env: { get(name: string): string | undefined };
}
