// Where the specs find what they run against. `npm test -- e2e` starts it all and sets these variables
// (scripts/lib/e2e-env.ts); `npx playwright test` alone falls back to what `npm start` serves (ports 4321, 54321…).

/** The local stack's API (Supabase's URL): REST, auth, functions. */
export const API = process.env.E2E_SUPABASE_URL ?? 'http://127.0.0.1:54321';

/** The stack's mail catcher (its Mailpit-compatible API). */
export const MAIL_API = process.env.E2E_MAIL_API ?? 'http://127.0.0.1:54324/api/v1';

/** The fixture feed server the news function reads (tests/fixtures/feeds), and takes down on request. */
export const FEEDS_URL = process.env.E2E_FEEDS_URL ?? '';

/** The build with a CAPTCHA site key (dist-captcha), served only when a CAPTCHA spec runs. */
export const CAPTCHA_SITE_URL = process.env.E2E_CAPTCHA_URL;

/** signals-ingest's secret on the stack the specs run against (`npm start`'s development value by default). */
export const SIGNALS_INGEST_SECRET =
  process.env.E2E_SIGNALS_INGEST_SECRET ?? 'local-demo-signals-ingest-secret-not-for-production';
