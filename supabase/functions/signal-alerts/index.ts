// Deno entry on Supabase Edge Functions; the local stack runs handler.ts directly.
import { createHandler } from './handler.ts';

Deno.serve(createHandler());
