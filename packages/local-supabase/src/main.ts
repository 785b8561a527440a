// `npm run stack`: the local Supabase stack alone, until Ctrl-C or SIGTERM.
import { loadConfig } from './config.ts';
import { stackSummary, startStack, stopOnSignal } from './server.ts';

const stack = await startStack(loadConfig());
console.log(`Local Supabase stack ready\n${stackSummary(stack)}\n\nPress Ctrl-C to stop.`);
stopOnSignal(() => stack.stop());
