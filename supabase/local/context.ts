import type { StackConfig } from './config.ts';
import type { Db } from './db/index.ts';
import type { Mailer } from './mail/mailer.ts';

/** What every service of the stack is given. */
export interface StackContext {
  config: StackConfig;
  db: Db;
  mailer: Mailer;
}
