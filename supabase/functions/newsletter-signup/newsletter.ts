// Newsletter double opt-in: a pending row with the SHA-256 of a random, expiring token; a mail whose link
// verifies the address. Signing up again never adds a row nor tells whether the address is known: the caller
// answers the same, and at most one more mail goes out per address per hour (none once verified). Each link
// mailed and each confirmation is appended to the consent record (consent-events.ts) before it takes effect.
//
// An address that unsubscribed (unsubscribe.ts) stays unsubscribed until a new link is confirmed: a request
// mails that link (never within the hour after the withdrawal or the last mail), but changes nothing else of the
// row, so whoever knows the address cannot undo the withdrawal or overwrite how consent was given and withdrawn.
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database, Tables } from '../../database.types.ts';
import { escapeHtml } from '../_shared/html.ts';
import type { Mailer, OutgoingMail } from '../_shared/mail.ts';
import { latestRequest, type RequestMeta, recordConsentEvent } from './consent-events.ts';
import { type UnsubscribeKey, unsubscribeHeaders, unsubscribeUrl } from './unsubscribe.ts';

export const TABLE = 'newsletter_subscribers';
export const FUNCTION_NAME = 'newsletter-signup';

/** How long a verification link works. */
export const TOKEN_TTL_MS = 24 * 60 * 60_000;
/** A pending address gets another verification mail only after this long. */
export const RESEND_AFTER_MS = 60 * 60_000;

/** 32 random bytes in base64url: 43 characters. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface NewsletterDeps {
  /** supabase-js with the service_role key (the table is closed to anon and authenticated). */
  db: SupabaseClient<Database>;
  mailer: Mailer;
  /** The site, for the landing page (SITE_URL). */
  siteUrl: string;
  /** The Supabase API's public URL, for the links in the mail (see `publicApiUrl` in handler.ts). */
  apiUrl: string;
  /** Signs the unsubscribe link of a subscriber (UNSUBSCRIBE_SECRET); read at the first mail. */
  unsubscribeKey: () => Promise<UnsubscribeKey>;
  now?: () => Date;
}

export type { RequestMeta } from './consent-events.ts';

export interface SignupMeta extends RequestMeta {
  /** The version of the card's wording the person saw (consent_text_version), one the site published. */
  consentVersion: string;
}

/** What a sign-up did; the caller answers the same for all three. */
export type SignupOutcome = 'mailed' | 'already-verified' | 'recently-mailed';
/** Where a verification link leads. */
export type VerifyOutcome = 'verified' | 'expired' | 'invalid';

/** The sign-up was stored (or already there) but its verification mail could not be sent. */
export class MailFailedError extends Error {
  override name = 'MailFailedError';
}

type SubscriberRow = Pick<
  Tables<'newsletter_subscribers'>,
  'id' | 'email' | 'status' | 'verify_sent_at' | 'verify_expires_at' | 'unsubscribed_at' | 'consent_text_version'
>;

const ROW_COLUMNS = 'id, email, status, verify_sent_at, verify_expires_at, unsubscribed_at, consent_text_version';

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Lower-case hex SHA-256 of a token: what the table stores instead of the token. */
export async function hashToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function newToken(): Promise<{ token: string; hash: string }> {
  const token = base64url(crypto.getRandomValues(new Uint8Array(32)));
  return { token, hash: await hashToken(token) };
}

export function isTokenShaped(token: string | null | undefined): token is string {
  return typeof token === 'string' && TOKEN_SHAPE.test(token);
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** The link in the mail: a GET on this function, which verifies and redirects to the site. */
export function verifyLink(apiUrl: string, token: string): string {
  return `${trimSlash(apiUrl)}/functions/v1/${FUNCTION_NAME}?token=${encodeURIComponent(token)}`;
}

/** The page a verification link lands on: /newsletter-verified, with ?status= when it did not verify. */
export function landingUrl(siteUrl: string, outcome: VerifyOutcome): string {
  const base = `${trimSlash(siteUrl)}/newsletter-verified`;
  return outcome === 'verified' ? base : `${base}?status=${outcome}`;
}

/**
 * The confirmation mail. Like every mail to a subscriber it carries a visible unsubscribe link and the
 * List-Unsubscribe / List-Unsubscribe-Post headers (RFC 8058), so a mail client can offer one-click unsubscribe.
 */
export function verificationMail(to: string, link: string, unsubscribeLink: string): OutgoingMail {
  const hours = Math.round(TOKEN_TTL_MS / 3_600_000);
  return {
    to,
    subject: 'Confirm your SignalOne newsletter subscription',
    text: [
      'Thanks for subscribing to the SignalOne newsletter.',
      '',
      'Confirm your email address to start receiving signal updates and market insights:',
      link,
      '',
      `The link works for ${hours} hours. If you did not sign up, ignore this email and nothing will be sent to you.`,
      '',
      'Unsubscribe (no more emails from this list, no sign-in needed):',
      unsubscribeLink,
      '',
    ].join('\n'),
    html: [
      '<p>Thanks for subscribing to the SignalOne newsletter.</p>',
      '<p>Confirm your email address to start receiving signal updates and market insights:</p>',
      `<p><a href="${escapeHtml(link)}">Confirm my subscription</a></p>`,
      `<p>The link works for ${hours} hours. If you did not sign up, ignore this email and nothing will be sent to you.</p>`,
      `<p><a href="${escapeHtml(unsubscribeLink)}">Unsubscribe</a> (no more emails from this list, no sign-in needed)</p>`,
    ].join('\n'),
    headers: unsubscribeHeaders(unsubscribeLink),
  };
}

const UNIQUE_VIOLATION = '23505';

async function findByEmail(deps: NewsletterDeps, email: string): Promise<SubscriberRow | null> {
  const { data, error } = await deps.db
    .from(TABLE)
    .select(ROW_COLUMNS)
    .eq('email_key', email.toLowerCase())
    .maybeSingle();
  if (error) throw new Error(`Could not read newsletter subscribers: ${error.message}`);
  return data;
}

/** The unsubscribe URL of subscriber `id`, signed with the function's key. */
export async function unsubscribeLinkFor(deps: NewsletterDeps, id: string): Promise<string> {
  const key = await deps.unsubscribeKey();
  return unsubscribeUrl(deps.apiUrl, FUNCTION_NAME, id, await key.token(id));
}

/** Frees the hourly slot again, so that trying again later sends at once (the hour after a withdrawal holds). */
async function releaseSlot(deps: NewsletterDeps, id: string): Promise<void> {
  const { error } = await deps.db.from(TABLE).update({ verify_sent_at: null }).eq('id', id);
  if (error) console.error(`newsletter ${id}: could not release the mail slot: ${error.message}`);
}

/**
 * Records the request, then sends the link: no link goes out that the consent record does not show. On failure
 * frees the slot; throws MailFailedError when the mail failed.
 */
async function recordAndMail(
  deps: NewsletterDeps,
  id: string,
  email: string,
  token: string,
  meta: SignupMeta,
): Promise<void> {
  try {
    await recordConsentEvent(deps.db, {
      subscriberId: id,
      kind: 'requested',
      via: 'form',
      email,
      ip: meta.ip,
      userAgent: meta.userAgent,
      consentVersion: meta.consentVersion,
    });
  } catch (err) {
    await releaseSlot(deps, id);
    throw err;
  }
  try {
    const unsubscribeLink = await unsubscribeLinkFor(deps, id);
    await deps.mailer.send(verificationMail(email, verifyLink(deps.apiUrl, token), unsubscribeLink));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    await releaseSlot(deps, id);
    throw new MailFailedError(`Verification mail failed: ${reason}`);
  }
}

/** When the address last heard from the list: its last link mailed, or its withdrawal if later. */
function lastContact(row: SubscriberRow): number {
  const times = [row.verify_sent_at, row.unsubscribed_at].map((t) => (t ? Date.parse(t) : Number.NaN));
  return Math.max(...times.filter((t) => !Number.isNaN(t)), Number.NEGATIVE_INFINITY);
}

/**
 * Stores a pending sign-up (or finds the address, compared case-insensitively) and mails a verification link
 * when one is due. Throws when nothing could be stored, and MailFailedError when the mail failed.
 */
export async function subscribe(email: string, meta: SignupMeta, deps: NewsletterDeps): Promise<SignupOutcome> {
  const now = (deps.now ?? (() => new Date()))();
  const expires = new Date(now.getTime() + TOKEN_TTL_MS).toISOString();
  // Two tries: a concurrent first sign-up of the same address makes our insert lose; the second pass finds it.
  for (let attempt = 0; attempt < 2; attempt++) {
    const existing = await findByEmail(deps, email);
    const { token, hash } = await newToken();
    if (!existing) {
      const { data, error } = await deps.db
        .from(TABLE)
        .insert({
          email,
          status: 'pending',
          verify_token_hash: hash,
          verify_expires_at: expires,
          verify_sent_at: now.toISOString(),
          ip: meta.ip,
          user_agent: meta.userAgent,
          consent_text_version: meta.consentVersion,
          consent_requested_at: now.toISOString(),
        })
        .select('id')
        .single();
      if (error?.code === UNIQUE_VIOLATION) continue;
      if (error || !data) throw new Error(`Could not store the sign-up: ${error?.message ?? 'no row returned'}`);
      await recordAndMail(deps, data.id, email, token, meta);
      return 'mailed';
    }
    if (existing.status === 'verified') return 'already-verified';
    if (now.getTime() - lastContact(existing) < RESEND_AFTER_MS) return 'recently-mailed';
    // A pending row takes the newest request's details (its link is the only one that works). An unsubscribed
    // row keeps its status, its withdrawal and the consent it withdrew: only a confirmation changes them.
    const details =
      existing.status === 'pending'
        ? {
            ip: meta.ip,
            user_agent: meta.userAgent,
            consent_text_version: meta.consentVersion,
            consent_requested_at: now.toISOString(),
          }
        : {};
    // Claim the slot with the values read, so that two requests at once send one mail between them.
    let claim = deps.db
      .from(TABLE)
      .update({ verify_token_hash: hash, verify_expires_at: expires, verify_sent_at: now.toISOString(), ...details })
      .eq('id', existing.id)
      .eq('status', existing.status);
    claim = existing.verify_sent_at
      ? claim.eq('verify_sent_at', existing.verify_sent_at)
      : claim.is('verify_sent_at', null);
    claim = existing.unsubscribed_at
      ? claim.eq('unsubscribed_at', existing.unsubscribed_at)
      : claim.is('unsubscribed_at', null);
    const { data, error } = await claim.select('id');
    if (error) throw new Error(`Could not update the sign-up: ${error.message}`);
    if (data?.length !== 1) return 'recently-mailed';
    await recordAndMail(deps, existing.id, email, token, meta);
    return 'mailed';
  }
  throw new Error('Could not store the sign-up: the address kept changing');
}

/**
 * Verifies the address a link's token belongs to, pending or unsubscribed: the confirmation is recorded, then
 * the row becomes verified with the details of the request whose link it was. A link used twice still lands on
 * "verified".
 */
export async function verify(token: string | null, deps: NewsletterDeps, meta: RequestMeta): Promise<VerifyOutcome> {
  if (!isTokenShaped(token)) return 'invalid';
  const now = (deps.now ?? (() => new Date()))();
  const hash = await hashToken(token);
  const { data, error } = await deps.db.from(TABLE).select(ROW_COLUMNS).eq('verify_token_hash', hash).maybeSingle();
  if (error) throw new Error(`Could not read newsletter subscribers: ${error.message}`);
  const row: SubscriberRow | null = data;
  if (!row) return 'invalid';
  if (row.status === 'verified') return 'verified';
  if (!row.verify_expires_at || Date.parse(row.verify_expires_at) <= now.getTime()) return 'expired';
  const request = await latestRequest(deps.db, row.id);
  await recordConsentEvent(deps.db, {
    subscriberId: row.id,
    kind: 'confirmed',
    via: 'link',
    email: row.email,
    ...meta,
    consentVersion: request ? request.consent_text_version : row.consent_text_version,
  });
  const confirmed = request
    ? {
        ip: request.ip,
        user_agent: request.user_agent,
        consent_text_version: request.consent_text_version,
        consent_requested_at: request.created_at,
      }
    : {};
  const update = await deps.db
    .from(TABLE)
    .update({ status: 'verified', verified_at: now.toISOString(), unsubscribed_at: null, ...confirmed })
    .eq('id', row.id)
    .eq('verify_token_hash', hash)
    .neq('status', 'verified');
  if (update.error) throw new Error(`Could not verify the sign-up: ${update.error.message}`);
  return 'verified';
}
