// The one browser Supabase client. Only pages with an island that needs it import this module (pages
// without islands read the stored session in auth.ts and load this on demand, e.g. when Sign Out is pressed).
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { $auth, authFromSession, markClientOwnsAuth, SUPABASE_KEY, SUPABASE_URL } from './auth.ts';

let client: SupabaseClient | undefined;

/** The client, created on first use; from then on supabase-js's auth events feed $auth. */
export function supabase(): SupabaseClient {
  if (client) return client;
  client = createClient(SUPABASE_URL, SUPABASE_KEY, {
    // The /auth page exchanges a reset code or sets hash tokens itself, so it can say when a link has expired.
    auth: { detectSessionInUrl: false },
  });
  markClientOwnsAuth();
  client.auth.onAuthStateChange((event, session) => {
    $auth.set(authFromSession(event, session));
  });
  return client;
}
