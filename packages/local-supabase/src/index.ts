// What the project's scripts and tests use of the local stack: start it, read its configuration and demo keys.
export { globToRegExp } from './auth/redirect.ts';
export {
  DEMO_ANON_KEY,
  DEMO_JWT_SECRET,
  DEMO_PUBLISHABLE_KEY,
  DEMO_SECRET_KEY,
  DEMO_SERVICE_ROLE_KEY,
  loadConfig,
  type StackConfig,
} from './config.ts';
export { isDatabaseUnavailable } from './db-unavailable.ts';
export { functionEnv } from './functions/settings.ts';
export { signJwt } from './jwt.ts';
export { type MailCatcher, startMailCatcher } from './mail/index.ts';
export { type RunningStack, stackSummary, startStack, stopOnSignal } from './server.ts';
