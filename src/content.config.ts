import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import {
  bandSchema,
  cardSchema,
  labelsSchema,
  pageSchema,
  resultSchema,
  signalSchema,
  siteSchema,
  tierSchema,
} from './content/schemas.ts';

/** One Markdown file per page: content/pages/<slug>.md (frontmatter + prose body). */
const pages = defineCollection({
  loader: glob({ base: './content/pages', pattern: '**/*.md' }),
  schema: pageSchema,
});

/** Header, footer and other chrome copy: content/site/navigation.md. */
const site = defineCollection({
  loader: glob({ base: './content/site', pattern: '**/*.md' }),
  schema: siteSchema,
});

/** Short UI strings per area: content/labels/<area>.md. */
const labels = defineCollection({
  loader: glob({ base: './content/labels', pattern: '**/*.md' }),
  schema: labelsSchema,
});

/** Feature cards on /features. */
const features = defineCollection({
  loader: glob({ base: './content/features', pattern: '**/*.md' }),
  schema: cardSchema,
});

/** Company values on /about-us. */
const values = defineCollection({
  loader: glob({ base: './content/values', pattern: '**/*.md' }),
  schema: cardSchema,
});

/** Sample live signals on /signals. */
const signals = defineCollection({
  loader: glob({ base: './content/signals', pattern: '**/*.md' }),
  schema: signalSchema,
});

/** Sample closed-trade results on /signals. */
const results = defineCollection({
  loader: glob({ base: './content/results', pattern: '**/*.md' }),
  schema: resultSchema,
});

/** The three signal bands (signals page, quiz result). */
const bands = defineCollection({
  loader: glob({ base: './content/bands', pattern: '**/*.md' }),
  schema: bandSchema,
});

/** The three tiers with the principles page figures. */
const tiers = defineCollection({
  loader: glob({ base: './content/tiers', pattern: '**/*.md' }),
  schema: tierSchema,
});

export const collections = {
  pages,
  site,
  labels,
  features,
  values,
  signals,
  results,
  bands,
  tiers,
};
