// Features this project keeps switched off, answered as GoTrue answers them when they are off:
// OAuth sign-in (`GET /authorize`) and MFA factors (`/factors`). Sources, from supabase/auth:
// internal/api/external.go (GetExternalProviderRedirectURL, Provider), internal/api/provider_constants.go,
// internal/conf/configuration.go (ValidateOAuth), internal/api/mfa.go (EnrollFactor), internal/api/admin.go
// (loadFactor), internal/api/api.go (the /factors routes sit behind requireAuthentication).
import type { Hono } from 'hono';
import { AuthError, badRequest, notFound, unprocessable } from '../errors.ts';
import { requireAuthentication } from '../guard.ts';
import { type AuthContext, handle, readBody, str } from '../request.ts';
import { isUuid } from '../users.ts';

/** GoTrue's OAuth providers (provider_constants.go, the cases of Provider()); none is enabled here. */
export const OAUTH_PROVIDERS = [
  'apple',
  'azure',
  'bitbucket',
  'discord',
  'facebook',
  'figma',
  'fly',
  'github',
  'gitlab',
  'google',
  'kakao',
  'keycloak',
  'linkedin',
  'linkedin_oidc',
  'notion',
  'snapchat',
  'spotify',
  'slack',
  'slack_oidc',
  'twitch',
  'twitter',
  'x',
  'vercel_marketplace',
  'workos',
  'zoom',
];

/** Why Provider() fails for `name`: an unknown name, a custom provider, or a known one that is off. */
function providerError(name: string): string {
  const lower = name.toLowerCase();
  if (lower.startsWith('custom:')) return 'custom OAuth providers are disabled';
  if (OAUTH_PROVIDERS.includes(lower)) return 'provider is not enabled';
  return `Provider ${lower} could not be found`;
}

const FACTOR_TYPES: Record<string, [code: string, label: string]> = {
  phone: ['mfa_phone_enroll_not_enabled', 'Phone'],
  totp: ['mfa_totp_enroll_not_enabled', 'TOTP'],
  webauthn: ['mfa_webauthn_enroll_not_enabled', 'WebAuthn'],
};

export function disabledRoutes(app: Hono, ctx: AuthContext) {
  // supabase-js signInWithOAuth only builds this URL; the browser opening it gets GoTrue's JSON error.
  app.get(
    '/authorize',
    handle(async (c) => {
      throw badRequest('validation_failed', `Unsupported provider: ${providerError(c.req.query('provider') ?? '')}`);
    }),
  );

  // mfa.enroll(): the switch is read before anything else of the body.
  app.post(
    '/factors',
    handle(async (c) => {
      await requireAuthentication(c, ctx);
      const body = await readBody(c);
      const type = FACTOR_TYPES[str(body, 'factor_type')];
      if (!type) throw badRequest('validation_failed', 'factor_type needs to be totp, phone, or webauthn');
      throw unprocessable(type[0], `MFA enroll is disabled for ${type[1]}`);
    }),
  );

  // mfa.challenge(), mfa.verify(), mfa.unenroll(): no factor can exist, so none is ever found.
  const noFactor = handle(async (c) => {
    await requireAuthentication(c, ctx);
    // GoTrue answers a malformed id with 404 too (apierrors.NewNotFoundError).
    if (!isUuid(c.req.param('id') ?? '')) throw notFound('validation_failed', 'factor_id must be an UUID');
    throw new AuthError(404, 'mfa_factor_not_found', 'Factor not found');
  });
  app.post('/factors/:id/challenge', noFactor);
  app.post('/factors/:id/verify', noFactor);
  app.delete('/factors/:id', noFactor);
}
