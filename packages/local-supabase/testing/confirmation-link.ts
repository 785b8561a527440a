// The sign-up confirmation mail (supabase/templates/confirmation.{html,txt}) links to the site's /auth page, which
// verifies the mail's token hash (POST /auth/v1/verify) only when the visitor saves a password. GET
// /auth/v1/verify, the link GoTrue's own {{ .ConfirmationURL }} holds, is still hosted GoTrue's: tests of it build
// that link from the mail's token hash exactly as GoTrue's template mailer forms it.
import type { MailMessage, TestStack } from './stack.ts';

/** The site link in a confirmation mail (text part): `<SITE_URL>/auth?tab=confirm&token_hash=…&type=signup`. */
export function confirmPageLink(mail: MailMessage): URL {
  const m = /https?:\/\/\S+\/auth\?tab=confirm&\S+/.exec(mail.Text);
  if (!m) throw new Error(`no /auth?tab=confirm link in mail "${mail.Subject}": ${mail.Text}`);
  return new URL(m[0]);
}

/** The token hash a confirmation mail carries ({{ .TokenHash }}: the user's confirmation_token). */
export function confirmationTokenHash(mail: MailMessage): string {
  const hash = confirmPageLink(mail).searchParams.get('token_hash');
  if (!hash) throw new Error(`no token_hash in the confirmation link of mail "${mail.Subject}": ${mail.Text}`);
  return hash;
}

/** Go's url.QueryEscape: everything but A-Z a-z 0-9 - _ . ~ percent-encoded (upper-case hex), space as "+". */
function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/**
 * GoTrue's {{ .ConfirmationURL }} for the sign-up the mail confirms, formed as its template mailer's
 * ConfirmationMail does (internal/mailer/templatemailer: getPath over url_paths.confirmation `/auth/v1/verify`,
 * resolved against API_EXTERNAL_URL): `<API>/auth/v1/verify?token=<token hash>&type=signup&redirect_to=<redirect>`,
 * token and type through url.QueryEscape, redirect_to as given unless it holds &, = or # (encodeRedirectURL: then
 * query-escaped). `redirect` is what GoTrue puts there: the sign-up's redirect_to when the allow-list accepts it,
 * else SITE_URL (the default).
 */
export function signupVerifyLink(t: TestStack, mail: MailMessage, redirect = t.config.siteUrl): string {
  const api = t.config.apiExternalUrl.replace(/\/+$/, '');
  const redirectTo = /[&=#]/.test(redirect) ? queryEscape(redirect) : redirect;
  return `${api}/auth/v1/verify?token=${queryEscape(confirmationTokenHash(mail))}&type=${queryEscape('signup')}&redirect_to=${redirectTo}`;
}
