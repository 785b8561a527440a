// The mail catcher: SMTP in (54325), a Mailpit-compatible API and a page out (54324).
// With `dataDir`, captured mail is kept in `${dataDir}/mail/` and survives a restart.
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { createSmtpServer } from './smtp.ts';
import { MailStore } from './store.ts';
import { mailWebApp } from './web.ts';

export interface MailCatcherOptions {
  host: string;
  smtpPort: number;
  webPort: number;
  /** The stack's data folder; without it, mail is kept in memory only. */
  dataDir?: string;
  /** Messages kept; the oldest go first. */
  maxMessages?: number;
}

export interface MailCatcher {
  store: MailStore;
  close(): Promise<void>;
}

export async function startMailCatcher(opts: MailCatcherOptions): Promise<MailCatcher> {
  const store = new MailStore({ dir: opts.dataDir ? join(opts.dataDir, 'mail') : undefined, cap: opts.maxMessages });
  const smtp = createSmtpServer(store);
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(opts.smtpPort, opts.host, () => {
      smtp.off('error', reject);
      resolve();
    });
  });
  smtp.on('error', (err) => console.error('mail catcher SMTP:', err.message));

  let web: ServerType;
  try {
    web = await new Promise<ServerType>((resolve, reject) => {
      const server = serve(
        {
          fetch: mailWebApp(store, { port: opts.webPort, host: opts.host }).fetch,
          port: opts.webPort,
          hostname: opts.host,
        },
        () => resolve(server),
      );
      server.once('error', reject);
    });
  } catch (err) {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    throw err;
  }

  return {
    store,
    async close() {
      await Promise.all([
        new Promise<void>((resolve) => smtp.close(() => resolve())),
        new Promise<void>((resolve) => web.close(() => resolve())),
      ]);
    },
  };
}
