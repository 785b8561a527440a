// `npm start`: builds the site if out of date, starts the local Supabase stack, serves the site; Ctrl-C stops all.
// Settings come from the environment and a .env file (.env.example lists them).
import { loadConfig, stackSummary, startStack, stopOnSignal } from 'local-supabase';
import { buildIfStale } from './lib/build.ts';
import { startSiteServer } from './lib/serve.ts';

// `npm start` reads .env (node --env-file-if-exists), where .env.example's unset entries are empty strings.
const port = Number(process.env.PORT || 4321);
// The site has no magic-link sign-up: /otp creates no users here unless OTP_SIGNUPS says otherwise.
const config = loadConfig({ ...process.env, OTP_SIGNUPS: process.env.OTP_SIGNUPS || 'off' });
// signals-ingest takes posts signed with SIGNALS_INGEST_SECRET: the environment's value (supabase/functions/.env,
// .env, the shell), else on loopback a development value, printed below for a local engine to sign with. On an
// address others reach none is made up: the function refuses every post until the variable is set.
const DEV_SIGNALS_INGEST_SECRET = 'local-demo-signals-ingest-secret-not-for-production';
const loopback = /^(127\.|localhost$|::1$|\[::1\]$)/.test(config.host);
if (!config.functionSecrets.SIGNALS_INGEST_SECRET && loopback) {
  config.functionSecrets.SIGNALS_INGEST_SECRET = DEV_SIGNALS_INGEST_SECRET;
}
const signalsSecret = config.functionSecrets.SIGNALS_INGEST_SECRET || '(unset: signals-ingest refuses every post)';

buildIfStale('dist');
const stack = await startStack(config);
const site = await startSiteServer({ dir: 'dist', port });

console.log(
  `\n  Site:             http://127.0.0.1:${port}\n${stackSummary(stack)}\n` +
    `  signals secret:   ${signalsSecret}  (SIGNALS_INGEST_SECRET, signs posts to signals-ingest)\n\nPress Ctrl-C to stop.`,
);
stopOnSignal(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
  await stack.stop();
});
