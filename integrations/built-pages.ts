// The pages of a build (build.format 'directory'): every HTML file outside _astro/, with the address it is
// served at. The one lister of built pages: the page CSS and header files integrations, `npm run size`,
// Lighthouse, the accessibility audit and the deploy check all read the build through it.
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export interface BuiltPage {
  /** `/`, `/about-us` for a directory's index.html; a page that is a file of its own keeps its name (`/404.html`). */
  route: string;
  /** The HTML file, absolute. */
  file: string;
}

export interface BuiltPagesOptions {
  /**
   * The 404 page (`/404.html`), which hosts send for any unknown address: true (the default) for what reads every
   * file of the build, false for what visits the site's addresses one by one.
   */
  include404?: boolean;
}

/** The address a built HTML file is served at. */
export function routeOf(root: string, file: string): string {
  const rel = relative(root, file).replaceAll('\\', '/');
  if (rel === 'index.html') return '/';
  if (rel.endsWith('/index.html')) return `/${rel.slice(0, -'/index.html'.length)}`;
  return `/${rel}`;
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '_astro' ? [] : htmlFiles(path);
    return entry.name.endsWith('.html') ? [path] : [];
  });
}

/** Every page of the build in `dir`, by route. */
export function builtPages(dir: string, { include404 = true }: BuiltPagesOptions = {}): BuiltPage[] {
  const root = resolve(dir);
  return htmlFiles(root)
    .map((file) => ({ route: routeOf(root, file), file }))
    .filter((page) => include404 || page.route !== '/404.html')
    .sort((a, b) => (a.route < b.route ? -1 : a.route > b.route ? 1 : 0));
}
