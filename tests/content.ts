// The site's copy as tests read it: content/<collection>/<entry>.md parsed the way Astro parses it (the YAML
// between the `---` lines, with the YAML parser Astro uses) and checked by the same zod schemas, so a test
// asserts whatever an editor wrote and an edited sentence does not break it. `copy('pages/index').hero?.banner`,
// `labels('auth')('signIn')`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { z } from 'astro/zod';
import { claimResolver, readClaims } from '../src/content/claims.ts';
import { type ContentCollections, contentCollections } from '../src/content/collections.ts';
import { parseFrontmatter } from '../src/content/frontmatter.ts';

export { fill } from '../src/lib/fill-template.ts';
export { parseFrontmatter };

const root = resolve(import.meta.dirname, '..', 'content');
/** Claim references become the claims' words, as the build makes them (src/content/claims.ts); no warnings here. */
const claims = claimResolver(readClaims(join(root, 'claims')), { check: 'warn', today: '', warn: () => {} });

/** Folder under content/ -> its schema, from the build's own collection map. */
type Schemas = {
  [K in keyof ContentCollections as ContentCollections[K]['folder']]: ContentCollections[K]['schema'];
};
const schemas = Object.fromEntries(
  Object.values(contentCollections).map(({ folder, schema }) => [folder, schema]),
) as Schemas;

type Folder = keyof typeof schemas;

type Data<F extends Folder> = z.output<(typeof schemas)[F]>;

export interface Entry<F extends Folder> {
  id: string;
  data: Data<F>;
  /** The Markdown below the frontmatter. */
  body: string;
}

function read<F extends Folder>(folder: F, id: string): Entry<F> {
  const file = join(root, folder, `${id}.md`);
  const { frontmatter, content } = parseFrontmatter(readFileSync(file, 'utf8'));
  const parsed = schemas[folder].safeParse(claims.data(frontmatter, `${file}:`));
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.message}`);
  return { id, data: parsed.data as Data<F>, body: claims.text(content, `${file} (body)`) };
}

/** One entry's frontmatter: `copy('pages/index')`, `copy('labels/auth')`. */
export function copy<F extends Folder>(entry: `${F}/${string}`): Data<F> {
  const [folder, ...rest] = entry.split('/');
  return read(folder as F, rest.join('/')).data;
}

/**
 * One entry's Markdown body as the page shows it, one string per paragraph: markup dropped, whitespace
 * collapsed, apostrophes and quotes curled as Astro's Markdown (SmartyPants) renders them.
 */
export function paragraphs(entry: `${Folder}/${string}`): string[] {
  const [folder, ...rest] = entry.split('/');
  return read(folder as Folder, rest.join('/'))
    .body.split(/\n\s*\n/)
    .map((paragraph) => smart(plain(paragraph)))
    .filter(Boolean);
}

/** The whole Markdown body as one text (see `paragraphs`). */
export function prose(entry: `${Folder}/${string}`): string {
  return paragraphs(entry).join(' ');
}

/** Every entry of a folder, in the order the site lists them (`order`, then file name). */
export function entries<F extends Folder>(folder: F): Entry<F>[] {
  const all = readdirSync(join(root, folder))
    .filter((name) => name.endsWith('.md'))
    .map((name) => read(folder, name.slice(0, -3)));
  const order = (e: Entry<F>) => ((e.data as { order?: number }).order ?? 0) as number;
  return all.sort((a, b) => order(a) - order(b) || a.id.localeCompare(b.id));
}

/** A lookup over content/labels/<area>.md that throws on an unknown key, as the site's own. */
export function labels(area: string): (key: string) => string {
  const { strings } = copy(`labels/${area}`);
  return (key) => {
    const value = strings[key];
    if (value === undefined) throw new Error(`content/labels/${area}.md has no strings.${key}`);
    return value;
  };
}

/** A page's section by id; throws naming the file when it is absent. */
export function section(page: string, id: string) {
  const found = copy(`pages/${page}`).sections?.find((s) => s.id === id);
  if (!found) throw new Error(`content/pages/${page}.md has no section "${id}"`);
  return found;
}

/** Markdown to the text a visitor reads: emphasis, links and list markers dropped, whitespace collapsed. */
export function plain(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#+|[-*+]|\d+\.)\s+/gm, '')
    .replace(/[*_`]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Straight apostrophes and quotes curled, as SmartyPants does. */
export function smart(text: string): string {
  return text
    .replace(/(\w)'/g, '$1\u2019')
    .replace(/'/g, '\u2018')
    .replace(/"(?=\w)/g, '\u201c')
    .replace(/"/g, '\u201d');
}

/** The first sentence of a text (up to the first full stop, question or exclamation mark). */
export function firstSentence(text: string): string {
  return plain(text).match(/^.*?[.!?](?=\s|$)/)?.[0] ?? plain(text);
}

/** A text as a regular expression that matches it literally. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
