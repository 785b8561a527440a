// The stack's mail catcher, as e2e tests read it (E2E_MAIL_API: its Mailpit-compatible API).
import { expect } from '@playwright/test';
import { MAIL_API } from './env.ts';

export interface CaughtMail {
  ID: string;
  To: { Name: string; Address: string }[];
  ReplyTo: { Name: string; Address: string }[];
  Subject: string;
  Text: string;
  HTML: string;
}

/** Waits for the newest mail matching `match` and returns it in full. */
export async function waitForMail(match: (m: CaughtMail) => boolean, timeoutMs = 20_000): Promise<CaughtMail> {
  let found: CaughtMail | undefined;
  await expect
    .poll(
      async () => {
        const list = (await (await fetch(`${MAIL_API}/messages`)).json()) as { messages: CaughtMail[] };
        for (const summary of list.messages) {
          const full = (await (await fetch(`${MAIL_API}/message/${summary.ID}`)).json()) as CaughtMail;
          if (match(full)) {
            found = full;
            return true;
          }
        }
        return false;
      },
      { timeout: timeoutMs, message: 'the expected mail to arrive' },
    )
    .toBe(true);
  return found as CaughtMail;
}

export const sentTo = (address: string) => (m: CaughtMail) =>
  m.To.some((to) => to.Address.toLowerCase() === address.toLowerCase());

/**
 * The confirmation mail's link: the site's /auth with the token hash (`?tab=confirm&token_hash=…&type=signup`),
 * where the page verifies it only once a password is saved.
 */
export function confirmationLink(mail: CaughtMail): string {
  const link = /https?:\/\/\S+\/auth\?\S*token_hash=\S+/.exec(mail.Text)?.[0];
  if (!link) throw new Error(`no confirmation link in "${mail.Subject}": ${mail.Text}`);
  return link;
}
