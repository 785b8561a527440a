// The content collections, once: each one's folder under content/ and its frontmatter schema. The build
// (src/content.config.ts) makes one glob-loaded collection of each; the tests (tests/content.ts) and the
// content editor's config (integrations/cms-config.ts) read the same folders with the same schemas. Free of
// astro:content, as ./schemas.ts, so code outside Astro can import it.
import { claimSchema } from './claims.ts';
import { companySchema } from './company.ts';
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
} from './schemas.ts';

/**
 * Collection name -> its folder under content/ (one Markdown file per entry), its schema, and what it holds
 * (the content editor at /admin/ shows that as the collection's description).
 */
export const contentCollections = {
  pages: {
    folder: 'pages',
    schema: pageSchema,
    description: 'One Markdown file per page: content/pages/<slug>.md (frontmatter + prose body).',
  },
  site: {
    folder: 'site',
    schema: siteSchema,
    description: 'Header, footer and other chrome copy: content/site/navigation.md.',
  },
  labels: {
    folder: 'labels',
    schema: labelsSchema,
    description: 'Short UI strings per area: content/labels/<area>.md.',
  },
  features: {
    folder: 'features',
    schema: cardSchema,
    description: 'Feature cards on /features.',
  },
  values: {
    folder: 'values',
    schema: cardSchema,
    description: 'Company values on /about-us.',
  },
  signals: {
    folder: 'signals',
    schema: signalSchema,
    description: 'Sample live signals on /signals.',
  },
  results: {
    folder: 'results',
    schema: resultSchema,
    description: 'Sample closed-trade results on /signals.',
  },
  bands: {
    folder: 'bands',
    schema: bandSchema,
    description: 'The three signal bands (signals page, quiz result).',
  },
  tiers: {
    folder: 'tiers',
    schema: tierSchema,
    description: 'The three tiers with the principles page figures.',
  },
  faq: {
    folder: 'faq',
    schema: faqSchema,
    description: 'FAQ questions on /faq (and its FAQPage JSON-LD): content/faq/<nn>-<slug>.md.',
  },
  quiz: {
    folder: 'quiz',
    schema: quizSchema,
    description: 'The risk-profile quiz: questions and tier results, content/quiz/risk-profile.md.',
  },
  demo: {
    folder: 'demo',
    schema: demoSchema,
    description: "The Live Trading Demo modal's copy: content/demo/live-trading.md.",
  },
  cardGroups: {
    folder: 'card-groups',
    schema: cardGroupSchema,
    description:
      'Card groups (support options and topics, signed-in Coming Soon panels): content/card-groups/<name>.md.',
  },
  verification: {
    folder: 'verification',
    schema: verificationSchema,
    description:
      'The /newsletter-verified variants: content/verification/{email,user,user-expired,expired,invalid}.md.',
  },
  member: {
    folder: 'member',
    schema: memberSidebarSchema,
    description: "The signed-in pages' sidebar: content/member/sidebar.md.",
  },
  company: {
    folder: 'company',
    schema: companySchema,
    description:
      "The company's details in the footer of every page: content/company/company.md. Replace every [placeholder]; leave out vatNumber and regulatoryStatus when they do not apply.",
  },
  claims: {
    folder: 'claims',
    schema: claimSchema,
    description:
      'Every figure or comparison the site states, with its evidence: content/claims/<id>.md, referred to in copy as {claim:<id>} (docs/claims.md).',
  },
} as const;

export type ContentCollections = typeof contentCollections;
