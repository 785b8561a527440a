// The auth service (GoTrue's HTTP API) mounted at /auth/v1.
import { Hono } from 'hono';
import type { StackContext } from '../context.ts';
import { captchaGuard } from './captcha.ts';
import { authMailer } from './mail.ts';
import { RateLimiter } from './ratelimit.ts';
import { RedirectAllowList } from './redirect.ts';
import type { AuthContext } from './request.ts';
import { accountRoutes } from './routes/account.ts';
import { adminRoutes } from './routes/admin.ts';
import { disabledRoutes } from './routes/disabled.ts';
import { mfaRoutes } from './routes/mfa.ts';
import { reauthenticateRoutes } from './routes/reauthenticate.ts';
import { tokenRoutes } from './routes/token.ts';
import { userRoutes } from './routes/user.ts';
import { verifyRoutes } from './routes/verify.ts';
import { loadAuthSettings } from './settings.ts';

export function authApp(stack: StackContext): Hono {
  const settings = loadAuthSettings(stack.config, stack.project, stack.jwtKeys);
  const limiter = new RateLimiter();
  const ctx: AuthContext = {
    db: stack.db,
    settings,
    allow: new RedirectAllowList(settings.siteUrl, settings.additionalRedirectUrls),
    limiter,
    mail: authMailer(settings, stack.mailer, limiter),
    trustedProxies: stack.trustedProxies,
  };

  const app = new Hono();
  // GoTrue's verifyCaptcha, on the routes api.go gives it (a no-op while [auth.captcha] is off).
  const captcha = captchaGuard(ctx);
  for (const path of ['/signup', '/recover', '/resend', '/magiclink', '/otp', '/token']) app.post(path, captcha);
  app.get('/health', (c) =>
    c.json({ version: 'local', name: 'GoTrue', description: 'GoTrue is a user registration and authentication API' }),
  );
  // GoTrue's JWKS (internal/api/jwks.go): the public keys of asymmetric signing, none in the legacy mode.
  app.get('/.well-known/jwks.json', (c) => {
    c.header('Cache-Control', 'public, max-age=600');
    return c.json({ keys: settings.jwtKeys.signing === 'ES256' ? [settings.jwtKeys.publicJwk] : [] });
  });
  app.get('/settings', (c) =>
    c.json({
      external: {
        anonymous_users: false,
        apple: false,
        azure: false,
        bitbucket: false,
        discord: false,
        facebook: false,
        figma: false,
        fly: false,
        github: false,
        gitlab: false,
        google: false,
        keycloak: false,
        kakao: false,
        linkedin: false,
        linkedin_oidc: false,
        nextcloud: false,
        notion: false,
        spotify: false,
        slack: false,
        slack_oidc: false,
        workos: false,
        twitch: false,
        twitter: false,
        email: settings.emailEnabled,
        phone: false,
        zoom: false,
      },
      disable_signup: settings.disableSignup,
      mailer_autoconfirm: settings.mailerAutoconfirm,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
    }),
  );
  accountRoutes(app, ctx);
  tokenRoutes(app, ctx);
  verifyRoutes(app, ctx);
  userRoutes(app, ctx);
  reauthenticateRoutes(app, ctx);
  mfaRoutes(app, ctx);
  adminRoutes(app, ctx);
  disabledRoutes(app, ctx);
  return app;
}
