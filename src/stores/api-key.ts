// The public API key, in a module of its own: the header on every page needs the project URL but not the key,
// and the key's ~200 characters are not worth shipping to pages that never call the API.
/** The public key the browser sends: the publishable key, else the legacy anon JWT, else the local stack's. */
export const SUPABASE_KEY: string =
  import.meta.env.PUBLIC_SUPABASE_PUBLISHABLE_KEY ||
  import.meta.env.PUBLIC_SUPABASE_ANON_KEY ||
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
