// Features this project keeps switched off, answered as GoTrue answers them when they are off: OAuth sign-in
// (`GET /authorize`). Sources, from supabase/auth: internal/api/external.go (GetExternalProviderRedirectURL,
// Provider), internal/api/provider_constants.go, internal/conf/configuration.go (ValidateOAuth).
import type { Context, Hono } from 'hono';
import { badRequest } from '../errors.ts';
import { type AuthContext, endpoints } from '../request.ts';

export function disabledRoutes(app: Hono, ctx: AuthContext) {
  const on = endpoints(ctx);
  app.get('/authorize', on(authorize));
}

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

/** GET /authorize: supabase-js signInWithOAuth only builds this URL; the browser opening it gets GoTrue's JSON error. */
async function authorize(c: Context): Promise<Response> {
  throw badRequest('validation_failed', `Unsupported provider: ${providerError(c.req.query('provider') ?? '')}`);
}
