// `npm start`: builds the site if out of date, starts the local Supabase stack, serves the site; Ctrl-C stops all.
// Settings come from the environment and a .env file (.env.example lists them).
import { loadConfig, stackSummary, startStack, stopOnSignal } from 'local-supabase';
import { buildIfStale } from './lib/build.ts';
import { startSiteServer } from './lib/serve.ts';

// `npm start` reads .env (node --env-file-if-exists), where .env.example's unset entries are empty strings.
const port = Number(process.env.PORT || 4321);
// The site has no magic-link sign-up: /otp creates no users here unless OTP_SIGNUPS says otherwise.
const config = loadConfig({ ...process.env, OTP_SIGNUPS: process.env.OTP_SIGNUPS || 'off' });

buildIfStale('dist');
const stack = await startStack(config);
const site = await startSiteServer({ dir: 'dist', port });

console.log(`\n  Site:             http://127.0.0.1:${port}\n${stackSummary(stack)}\n\nPress Ctrl-C to stop.`);
stopOnSignal(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
  await stack.stop();
});
