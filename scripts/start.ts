// `npm start`: builds the site if out of date, starts the local Supabase stack, serves the site; Ctrl-C stops all.
import { loadConfig, stackSummary, startStack, stopOnSignal } from 'local-supabase';
import { buildIfStale } from './lib/build.ts';
import { startSiteServer } from './lib/serve.ts';

const port = Number(process.env.PORT ?? 4321);
// The site has no magic-link sign-up: /otp creates no users here unless OTP_SIGNUPS says otherwise.
const config = loadConfig({ OTP_SIGNUPS: 'off', ...process.env });

buildIfStale('dist');
const stack = await startStack(config);
const site = await startSiteServer({ dir: 'dist', port });

console.log(`\n  Site:             http://127.0.0.1:${port}\n${stackSummary(stack)}\n\nPress Ctrl-C to stop.`);
stopOnSignal(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
  await stack.stop();
});
