import { createHash } from 'node:crypto';

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
 * Lets one page load a third-party widget: its script origin in script-src, its frames in frame-src.
 * Astro drops its default 'self' from script-src once a page names a resource, so 'self' is named again.
 */
export function allowChartWidget(astro: CspDirectivesContext, scriptOrigin: string, frameOrigin: string): void {
  astro.csp?.insertScriptResource("'self'");
  astro.csp?.insertScriptResource(scriptOrigin);
  astro.csp?.insertDirective(`frame-src ${frameOrigin}`);
}
