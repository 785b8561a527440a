// supabase-js as the account functions use it to call the auth service on a visitor's behalf.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { type Env, requireEnv } from './env.ts';

/**
 * The anon-key client for one request: implicit flow (mailed links carry their tokens, so they work in any
 * browser, not only one holding a PKCE verifier), no stored session, and the visitor's address in
 * X-Forwarded-For so that the auth service's per-IP limits can count the visitor rather than this function
 * (where the auth service trusts the header from the function's address).
 */
export function visitorAuthClient(env: Env, ip: string): SupabaseClient {
  return createClient(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_ANON_KEY'), {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType: 'implicit' },
    global: { headers: ip === 'unknown' ? {} : { 'X-Forwarded-For': ip } },
  });
}
