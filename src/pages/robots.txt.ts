import type { APIRoute } from 'astro';

// Generated so the Sitemap line follows SITE_URL (Astro.site) at build time.
export const GET: APIRoute = ({ site, url }) => {
  const sitemap = new URL('/sitemap-index.xml', site ?? url).href;
  return new Response(`User-agent: *\nAllow: /\n\nSitemap: ${sitemap}\n`, {
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  });
};
