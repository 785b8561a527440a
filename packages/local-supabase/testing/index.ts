// Test helpers for code that runs against the stack: a stack per test file on a copy of one migrated
// database (with global-setup.ts), supabase-js clients, the mail catcher, a throwaway PostgreSQL cluster.
export * from './auth-helpers.ts';
export * from './confirmation-link.ts';
export { freePort } from './free-port.ts';
export { startThrowawayCluster, type ThrowawayCluster } from './pg-cluster.ts';
export * from './rest-helpers.ts';
export * from './stack.ts';
export { codeFor, wrongCode } from './totp.ts';
