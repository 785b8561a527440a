import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { type ContentCollections, contentCollections } from './content/collections.ts';

/** Each collection keeps its own schema's type, so entries are typed by it. */
type Collections = {
  [K in keyof ContentCollections]: Omit<ReturnType<typeof defineCollection>, 'schema'> & {
    schema: ContentCollections[K]['schema'];
  };
};

/** Every collection of ./content/collections.ts: the Markdown files of its folder, checked by its schema. */
export const collections = Object.fromEntries(
  Object.entries(contentCollections).map(([name, { folder, schema }]) => [
    name,
    defineCollection({ loader: glob({ base: `./content/${folder}`, pattern: '**/*.md' }), schema }),
  ]),
) as Collections;
