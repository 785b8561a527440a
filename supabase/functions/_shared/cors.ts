// CORS as supabase-js ships it (`@supabase/supabase-js/cors`): functions answer preflight themselves.
export const corsHeaders: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers':
    'authorization, x-client-info, apikey, content-type, x-retry-count, traceparent, tracestate, baggage',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
};

/** The answer to a CORS preflight (`OPTIONS`). */
export function options(): Response {
  return new Response('ok', { status: 200, headers: corsHeaders });
}
