// `npm run stack`: the local Supabase stack alone, until Ctrl-C or SIGTERM.
import { loadConfig } from './config.ts';
import { startStack } from './server.ts';

const stack = await startStack(loadConfig());
const { config } = stack;
console.log(`Local Supabase stack ready (${stack.ctx.db.kind})
  API URL:          ${stack.url}
  DB URL:           ${config.databaseUrl ? '(DATABASE_URL)' : `postgresql://postgres:postgres@${config.host}:${config.ports.db}/postgres`}
  Mail catcher:     http://${config.host}:${config.ports.mailWeb}
  SMTP:             smtp://${config.host}:${config.ports.smtp}
  anon key:         ${config.anonKey}
  service_role key: ${config.serviceRoleKey}`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the local stack`);
  await stack.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
