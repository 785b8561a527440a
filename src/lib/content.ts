// Content lookups that fail the build with the file to fix named, rather than rendering blanks.
import { type CollectionEntry, type CollectionKey, getCollection, getEntry } from 'astro:content';

export async function getPage(slug: string): Promise<CollectionEntry<'pages'>> {
  const entry = await getEntry('pages', slug);
  if (!entry) throw new Error(`Missing page content: create content/pages/${slug}.md`);
  return entry;
}

export async function getSite(): Promise<CollectionEntry<'site'>['data']> {
  const entry = await getEntry('site', 'navigation');
  if (!entry) throw new Error('Missing site content: create content/site/navigation.md');
  return entry.data;
}

/** Returns a lookup over content/labels/<area>.md that throws on an unknown key. */
export async function getLabels(area: string): Promise<(key: string) => string> {
  const entry = await getEntry('labels', area);
  if (!entry) throw new Error(`Missing labels: create content/labels/${area}.md`);
  const { strings } = entry.data;
  return (key) => {
    const value = strings[key];
    if (value === undefined) throw new Error(`Missing label "${key}" in content/labels/${area}.md (strings.${key})`);
    return value;
  };
}

/**
 * The labels an island reads, picked from content/labels/<area>.md by its key list (`X_LABEL_KEYS` beside the
 * island); a missing one fails the build naming the file and key.
 */
export async function pickLabels<K extends string>(area: string, keys: readonly K[]): Promise<Record<K, string>> {
  const label = await getLabels(area);
  return Object.fromEntries(keys.map((key) => [key, label(key)])) as Record<K, string>;
}

/** A section of a page by its id; throws naming the file when the section is absent. */
export function getSection(page: CollectionEntry<'pages'>, id: string) {
  const section = page.data.sections?.find((s) => s.id === id);
  if (!section) throw new Error(`content/pages/${page.id}.md: no section with id "${id}" in sections`);
  return section;
}

type Ordered = { data: { order: number } };

/** All entries of an ordered collection, sorted by their `order` field; throws when empty. */
export async function getOrdered<C extends CollectionKey>(collection: C) {
  const entries = (await getCollection(collection)) as unknown as (CollectionEntry<C> & Ordered)[];
  if (entries.length === 0) throw new Error(`No entries in content/${collection}/`);
  return entries.sort((a, b) => a.data.order - b.data.order || a.id.localeCompare(b.id));
}
