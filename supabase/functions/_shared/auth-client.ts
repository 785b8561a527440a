// supabase-js as the account functions use it to call the auth service on a visitor's behalf.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { type Env, requireEnv } from './env.ts';

/**
 * The anon-key client for one request: implicit flow (mailed links carry their tokens, so they work in any
 * browser, not only one holding a PKCE verifier), no stored session, and the visitor's address (clientIp: what
 * the platform put in CF-Connecting-IP, never a header the visitor wrote) sent on as X-Forwarded-For, the header
 * the auth service reads for its per-IP limits, so they can count the visitor rather than this function. The
 * function's own request crosses the gateway again, which appends the function's address to that header; the
 * local auth service believes the visitor's entry only when TRUSTED_PROXIES names the function's address,
 * otherwise it counts the function. An unknown address is not sent.
 */
export function visitorAuthClient(env: Env, ip: string): SupabaseClient<Database> {
  return createClient<Database>(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_ANON_KEY'), {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType: 'implicit' },
    global: { headers: ip === 'unknown' ? {} : { 'X-Forwarded-For': ip } },
  });
}
