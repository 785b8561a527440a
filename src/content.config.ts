import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import {
  bandSchema,
  cardGroupSchema,
  cardSchema,
  demoSchema,
  faqSchema,
  labelsSchema,
  memberSidebarSchema,
  pageSchema,
  quizSchema,
  resultSchema,
  signalSchema,
  siteSchema,
  tierSchema,
  verificationSchema,
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

/** FAQ questions on /faq (and its FAQPage JSON-LD): content/faq/<nn>-<slug>.md. */
const faq = defineCollection({
  loader: glob({ base: './content/faq', pattern: '**/*.md' }),
  schema: faqSchema,
});

/** The risk-profile quiz: questions and tier results, content/quiz/risk-profile.md. */
const quiz = defineCollection({
  loader: glob({ base: './content/quiz', pattern: '**/*.md' }),
  schema: quizSchema,
});

/** The Live Trading Demo modal's copy: content/demo/live-trading.md. */
const demo = defineCollection({
  loader: glob({ base: './content/demo', pattern: '**/*.md' }),
  schema: demoSchema,
});

/** Card groups (support options and topics, signed-in Coming Soon panels): content/card-groups/<name>.md. */
const cardGroups = defineCollection({
  loader: glob({ base: './content/card-groups', pattern: '**/*.md' }),
  schema: cardGroupSchema,
});

/** The /newsletter-verified variants: content/verification/{email,user,user-expired,expired,invalid}.md. */
const verification = defineCollection({
  loader: glob({ base: './content/verification', pattern: '**/*.md' }),
  schema: verificationSchema,
});

/** The signed-in pages' sidebar: content/member/sidebar.md. */
const member = defineCollection({
  loader: glob({ base: './content/member', pattern: '**/*.md' }),
  schema: memberSidebarSchema,
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
  faq,
  quiz,
  demo,
  cardGroups,
  verification,
  member,
};
