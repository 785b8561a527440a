import type { TrustedProxies } from './client-address.ts';
import type { StackConfig } from './config.ts';
import type { Db } from './db/types.ts';
import type { JwtKeys } from './jwt.ts';
import type { Mailer } from './mail/mailer.ts';
import type { TomlTable } from './project.ts';

/** What every service of the stack is given. */
export interface StackContext {
  config: StackConfig;
  db: Db;
  /** The JWT secret and the ES256 signing key (jwt.ts). */
  jwtKeys: JwtKeys;
  mailer: Mailer;
  /** supabase/config.toml, parsed once at start. */
  project: TomlTable;
  /** TRUSTED_PROXIES, parsed: whose X-Forwarded-For is believed (see client-address.ts). */
  trustedProxies: TrustedProxies;
}
