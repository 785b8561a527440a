import { createHash } from 'node:crypto';
import { captchaSiteKey, TURNSTILE_FRAME_ORIGIN, TURNSTILE_SCRIPT } from './captcha.ts';
import { TRADINGVIEW_FRAME_ORIGIN, TRADINGVIEW_SCRIPT } from './chart-widget.ts';

/** The CSP source that allows one inline script: `sha256-<base64 digest of its exact text>`. */
export function scriptHash(code: string): `sha256-${string}` {
  return `sha256-${createHash('sha256').update(code).digest('base64')}`;
}

interface CspContext {
  csp?: { insertScriptHash(hash: `sha256-${string}`): void };
}

/**
 * Adds an inline script's hash to the page's CSP <meta>. Call it from the page's own frontmatter: by the
 * time a nested component renders, the <head> holding the policy is already written.
 */
export function allowInlineScript(astro: CspContext, code: string): void {
  astro.csp?.insertScriptHash(scriptHash(code));
}

interface CspDirectivesContext {
  csp?: {
    insertScriptResource(resource: string): void;
    insertDirective(directive: string): void;
  };
}

/**
 * Lets one page load a third-party widget: its one script URL in script-src, its frames in frame-src.
 * A CSP source with a path matches that exact URL only when the path does not end in '/' (one that does allows
 * every URL below it), so anything but a full https URL of a file is refused. Astro drops its default 'self'
 * from script-src once a page names a resource, so 'self' is named again.
 */
export function allowChartWidget(astro: CspDirectivesContext, scriptUrl: string, frameOrigin: string): void {
  const url = new URL(scriptUrl);
  if (url.protocol !== 'https:' || url.pathname.endsWith('/') || url.search || url.hash || url.href !== scriptUrl) {
    throw new Error(`allowChartWidget: "${scriptUrl}" is not the exact https URL of one script`);
  }
  astro.csp?.insertScriptResource("'self'");
  astro.csp?.insertScriptResource(scriptUrl);
  astro.csp?.insertDirective(`frame-src ${frameOrigin}`);
}

/** What /trading-ideas allows for TradingView's advanced-chart widget: its embed script's URL and its frames. */
export function allowTradingViewChart(astro: CspDirectivesContext): void {
  allowChartWidget(astro, TRADINGVIEW_SCRIPT, TRADINGVIEW_FRAME_ORIGIN);
}

/**
 * What a page with a CAPTCHA-guarded form (sign-up, sign-in, reset, newsletter, contact) allows for Turnstile:
 * its script URL and its challenge frames, and only when the build has a site key (PUBLIC_TURNSTILE_SITE_KEY).
 * Without one the page's policy stays as it was, since its forms then load nothing.
 */
export function allowCaptcha(
  astro: CspDirectivesContext,
  siteKey: string = captchaSiteKey(import.meta.env.PUBLIC_TURNSTILE_SITE_KEY),
): void {
  if (!siteKey) return;
  allowChartWidget(astro, TURNSTILE_SCRIPT, TURNSTILE_FRAME_ORIGIN);
}
