// The browser client, loaded when first needed. /auth calls the auth server only when a form is sent (or the
// address carries a link, or a session is stored), so a visit that only reads the form downloads, compiles and
// starts none of supabase-js during the page's load; the island starts loading it at the first focus or tap.
// (The header's Sign Out loads it the same way, in src/stores/sign-out.ts, without this module: the signed-in
// pages, which import supabase.ts up front, stay one chunk smaller.)
import type { BrowserClient } from './supabase.ts';

let loading: Promise<BrowserClient> | undefined;

/** The client, its module loaded once; a failed load (offline) is tried again on the next call. */
export function loadSupabase(): Promise<BrowserClient> {
  loading ??= import('./supabase.ts')
    .then((m) => m.supabase())
    .catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
  return loading;
}
