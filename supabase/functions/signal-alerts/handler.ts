// signal-alerts over HTTP (docs/alerts.md):
//   POST /signal-alerts/send          the sender: mails the due rows of the alert outbox. Service-role key only:
//                                     pg_cron + pg_net call it on hosted Supabase, the stack's scheduler locally.
//   GET  /signal-alerts/unsubscribe   the link in every alert mail: turns the member's email alerts off and
//                                     redirects (303) to the settings panel, which shows them off.
//   POST /signal-alerts/unsubscribe   a mail client's one-click request (RFC 8058): the same, answered 200.
// The logic is in alerts.ts and unsubscribe.ts.
import { createClient } from '@supabase/supabase-js';
import type { Database } from '../../database.types.ts';
import { options } from '../_shared/cors.ts';
import { type Env, requireEnv, runtimeEnv } from '../_shared/env.ts';
import { errorResponse, json, methodNotAllowed } from '../_shared/http.ts';
import { mailerFromEnv } from '../_shared/mail.ts';
import { hasServiceRole } from '../_shared/service-role.ts';
import type { UnsubscribeKey } from '../_shared/unsubscribe-token.ts';
import { type SendDeps, type SendTally, sendDue } from './alerts.ts';
import {
  type AlertsUnsubscribeOutcome,
  alertsUnsubscribeKey,
  alertsUnsubscribeUrl,
  isOneClickBody,
  isUnsubscribePath,
  unsubscribeAlerts,
} from './unsubscribe.ts';

export const FUNCTION_NAME = 'signal-alerts';

export const SEND_FORBIDDEN = 'The send entry requires the service-role key.';
export const SEND_FAILURE_MESSAGE =
  'Sending failed (see the function logs); queued alerts stay stored for the next run.';
export const UNSUBSCRIBE_FAILURE_MESSAGE =
  'Could not turn your alerts off right now. Please open the link again later.';
export const UNSUBSCRIBE_INVALID_MESSAGE = 'This unsubscribe link is not valid.';
export const ONE_CLICK_MESSAGE = 'Send List-Unsubscribe=One-Click as a form body (RFC 8058).';

/** The API's public URL, which links in mail are built on (API_EXTERNAL_URL where functions reach it inside). */
export function publicApiUrl(env: Env): string {
  return env.get('API_EXTERNAL_URL')?.trim() || requireEnv(env, 'SUPABASE_URL');
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Where a clicked link lands: the settings panel with alerts off, or the page for a link that is not valid. */
export function unsubscribeLandingUrl(siteUrl: string, outcome: AlertsUnsubscribeOutcome): string {
  return outcome === 'off'
    ? `${trimSlash(siteUrl)}/settings?alerts=off#notification-preferences`
    : `${trimSlash(siteUrl)}/newsletter-verified?status=unsubscribe-invalid`;
}

/** Whether the request is for the send entry (`/signal-alerts/send`). */
export function isSendPath(req: Request): boolean {
  return /\/send\/?$/.test(new URL(req.url).pathname);
}

export function createHandler(env: Env = runtimeEnv()): (req: Request) => Promise<Response> {
  let db: ReturnType<typeof createClient<Database>> | undefined;
  const getDb = () => {
    db ??= createClient<Database>(requireEnv(env, 'SUPABASE_URL'), requireEnv(env, 'SUPABASE_SERVICE_ROLE_KEY'), {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
    return db;
  };
  // The key is made once per isolate; a failure (no secret) is not kept, so a later request tries again.
  let key: Promise<UnsubscribeKey> | undefined;
  const getKey = (): Promise<UnsubscribeKey> => {
    key ??= alertsUnsubscribeKey(env).catch((err) => {
      key = undefined;
      throw err;
    });
    return key;
  };
  let deps: SendDeps | undefined;
  const getDeps = (): SendDeps => {
    if (!deps) {
      const site = trimSlash(requireEnv(env, 'SITE_URL'));
      const api = publicApiUrl(env);
      deps = {
        db: getDb(),
        mailer: mailerFromEnv(env),
        async links(userId) {
          const k = await getKey();
          return {
            unsubscribe: alertsUnsubscribeUrl(api, userId, await k.token(userId)),
            dashboard: `${site}/dashboard`,
            settings: `${site}/settings#notification-preferences`,
          };
        },
      };
    }
    return deps;
  };
  // One run at a time per isolate: a call during a run waits for it and answers its tally.
  let running: Promise<SendTally> | undefined;

  async function send(req: Request): Promise<Response> {
    await req.body?.cancel().catch(() => {});
    if (req.method !== 'POST') return methodNotAllowed(['POST']);
    if (!hasServiceRole(req, env)) return errorResponse(401, 'not_admin', SEND_FORBIDDEN);
    try {
      running ??= sendDue(getDeps()).finally(() => {
        running = undefined;
      });
      return json({ success: true, ...(await running) });
    } catch (err) {
      console.error(`${FUNCTION_NAME} send:`, err instanceof Error ? err.message : err);
      return errorResponse(503, 'unexpected_failure', SEND_FAILURE_MESSAGE);
    }
  }

  /**
   * The unsubscribe link. No rate limit: the token is checked by its HMAC before any database work. GET
   * redirects to the site; POST (RFC 8058 one-click) answers 200, or 403 for a token that is not the member's.
   */
  async function unsubscribe(req: Request): Promise<Response> {
    if (req.method !== 'GET' && req.method !== 'POST') return methodNotAllowed(['GET', 'POST']);
    if (req.method === 'POST' && !(await isOneClickBody(req)))
      return errorResponse(400, 'invalid_input', ONE_CLICK_MESSAGE, { field: 'List-Unsubscribe' });
    const query = new URL(req.url).searchParams;
    let outcome: AlertsUnsubscribeOutcome;
    try {
      outcome = await unsubscribeAlerts(query.get('id'), query.get('token'), { db: getDb(), key: await getKey() });
    } catch (err) {
      console.error(`${FUNCTION_NAME} unsubscribe:`, err instanceof Error ? err.message : err);
      return errorResponse(500, 'unexpected_failure', UNSUBSCRIBE_FAILURE_MESSAGE);
    }
    if (req.method === 'POST') {
      return outcome === 'off'
        ? json({ success: true })
        : errorResponse(403, 'invalid_link', UNSUBSCRIBE_INVALID_MESSAGE);
    }
    return new Response(null, {
      status: 303,
      headers: {
        Location: unsubscribeLandingUrl(requireEnv(env, 'SITE_URL'), outcome),
        'Cache-Control': 'no-store',
        // The token is in this URL: the landing page must not receive it as a referrer.
        'Referrer-Policy': 'no-referrer',
      },
    });
  }

  return async function handler(req: Request): Promise<Response> {
    if (req.method === 'OPTIONS') return options();
    if (isUnsubscribePath(req)) return unsubscribe(req);
    if (isSendPath(req)) return send(req);
    await req.body?.cancel().catch(() => {});
    return methodNotAllowed(['POST']);
  };
}
