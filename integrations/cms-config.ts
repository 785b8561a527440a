// The CMS's collections (Decap CMS: dist-cms/ in production, /admin/ under `npm run cms`), generated from the
// build's own zod schemas (src/content/schemas.ts) and the collection map (src/content/collections.ts), so the
// form asks for exactly the fields the build checks, with the same required fields, lengths, patterns and
// choices. A field added to a schema shows up in the CMS by itself; tests/unit/cms-config.test.ts fails when
// one is missing.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { z } from 'astro/zod';
import { contentCollections as collectionMap } from '../src/content/collections.ts';

/** A Decap CMS field definition (https://decapcms.org/docs/widgets/). */
export interface CmsField {
  name: string;
  label: string;
  widget: string;
  required?: boolean;
  hint?: string;
  pattern?: [string, string];
  options?: (string | number)[];
  value_type?: 'int' | 'float';
  min?: number;
  max?: number;
  fields?: CmsField[];
  field?: CmsField;
  summary?: string;
  collapsed?: boolean;
}

export interface CmsCollection {
  name: string;
  label: string;
  folder?: string;
  files?: { name: string; label: string; file: string; fields: CmsField[] }[];
  extension?: string;
  format: 'frontmatter';
  create?: boolean;
  slug?: string;
  identifier_field?: string;
  summary?: string;
  sortable_fields?: string[];
  fields?: CmsField[];
}

export interface ContentCollection {
  /** The collection's name in src/content/collections.ts (`faq`, `cardGroups`). */
  name: string;
  /** Its folder under the project: `content/faq`. */
  folder: string;
  schema: z.ZodType;
  /** What it holds: the CMS shows it as the collection's description. */
  description: string;
}

// biome-ignore lint/suspicious/noExplicitAny: zod's internal definitions are walked generically
type Def = any;
const def = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The build's collections (src/content/collections.ts, which src/content.config.ts loads). */
export function contentCollections(): ContentCollection[] {
  return Object.entries(collectionMap).map(([name, { folder, schema, description }]) => ({
    name,
    folder: `content/${folder}`,
    schema,
    description,
  }));
}

/** Names whose plain spelling would puzzle an editor. */
const LABELS: Record<string, string> = { ctas: 'Buttons', href: 'Link', cardGroups: 'Card groups' };

/** `stopLoss` → `Stop loss`, `headerLinks` → `Header links`. */
export function labelOf(name: string): string {
  if (LABELS[name]) return LABELS[name];
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Strings an editor writes sentences into get a multi-line box. */
const LONG = /^(text|lead|intro|disclaimer|description|summary|body|stopRules)$|(Description|Text)$/;

/** The message of a zod check (its custom error, when it has one). */
function messageOf(check: Def): string | undefined {
  const message = typeof check.error === 'function' ? check.error({}) : undefined;
  return typeof message === 'string' ? message : undefined;
}

/**
 * One regular expression that holds when every pattern and length rule of a string schema holds: a lookahead
 * per rule (Decap takes one pattern per field), and the rules' own messages as its error text.
 */
function stringRules(checks: Def[]): { pattern?: [string, string]; min: number; max?: number } {
  const parts: string[] = [];
  const messages: string[] = [];
  let min = 0;
  let max: number | undefined;
  let minMessage: string | undefined;
  let maxMessage: string | undefined;
  for (const c of checks.map((check) => check._zod.def)) {
    if (c.check === 'min_length') [min, minMessage] = [c.minimum, messageOf(c)];
    if (c.check === 'max_length') [max, maxMessage] = [c.maximum, messageOf(c)];
    if (c.check === 'string_format' && c.format === 'regex') {
      parts.push(`(?=[\\s\\S]*?(?:${(c.pattern as RegExp).source}))`);
      messages.push(messageOf(c) ?? `must match ${(c.pattern as RegExp).source}`);
    }
  }
  // A length above the 1 that "required" already asks for is a rule of its own (meta descriptions: 50 to 160).
  // A claim reference ({claim:<id>}, src/content/claims.ts) counts as one character here: the build checks the length
  // again with the claim's words in place.
  if (min > 1 || max !== undefined) {
    parts.push(`(?=(?:\\{claim:[^}]*\\}|[\\s\\S]){${min},${max ?? ''}}$)`);
    if (min > 1) messages.push(minMessage ?? `at least ${min} characters`);
    if (max !== undefined) messages.push(maxMessage ?? `at most ${max} characters`);
  }
  if (!parts.length) return { min, max };
  const message = messages.join('; ');
  return { pattern: [`^${parts.join('')}`, message], min, max };
}

function isLong(name: string, min: number): boolean {
  return LONG.test(name) || min >= 50;
}

/** The field of a list item's title, for the collapsed list rows. */
const TITLE_FIELDS = ['title', 'label', 'question', 'name', 'heading', 'text', 'tier', 'id'];

const joinHints = (...hints: (string | undefined)[]) => hints.filter(Boolean).join(' ');

/** The Decap field for one zod schema under `name`. */
export function fieldOf(name: string, schema: z.ZodType, label = labelOf(name)): CmsField {
  let d = def(schema);
  let required = true;
  while (d.type === 'optional' || d.type === 'default') {
    required = false;
    d = def(d.innerType);
  }
  // z.preprocess(fn, schema): the editor writes what the schema takes (a claim's dates: YYYY-MM-DD).
  if (d.type === 'pipe' && def(d.in).type === 'transform') d = def(d.out);
  const base = { name, label, ...(required ? {} : { required: false }) };
  switch (d.type) {
    case 'string': {
      const rules = stringRules(d.checks ?? []);
      return {
        ...base,
        widget: isLong(name, rules.min) ? 'text' : 'string',
        ...(rules.pattern ? { pattern: rules.pattern, hint: `Rule: ${rules.pattern[1]}.` } : {}),
      };
    }
    case 'number': {
      const checks = (d.checks ?? []).map((c: Def) => c._zod.def);
      const int = checks.some((c: Def) => c.check === 'number_format' && /int/.test(c.format));
      const floor = checks.find((c: Def) => c.check === 'greater_than');
      const min = floor ? (floor.inclusive ? floor.value : floor.value + (int ? 1 : 0)) : undefined;
      return { ...base, widget: 'number', value_type: int ? 'int' : 'float', ...(min === undefined ? {} : { min }) };
    }
    case 'enum':
      return { ...base, widget: 'select', options: Object.values(d.entries) as string[] };
    case 'union': {
      // A choice of numbers (the quiz's scores 1, 3, 5): a number box that accepts only those.
      const values = d.options.map((o: z.ZodType) => def(o)).filter((o: Def) => o.type === 'literal');
      if (values.length !== d.options.length) throw new Error(`${name}: unions other than of literals`);
      const allowed = values.flatMap((o: Def) => o.values) as (string | number)[];
      const message = messageOf(d) ?? `must be one of ${allowed.join(', ')}`;
      if (allowed.every((v) => typeof v === 'number')) {
        return { ...base, widget: 'number', value_type: 'int', pattern: [`^(${allowed.join('|')})$`, message] };
      }
      return { ...base, widget: 'select', options: allowed };
    }
    case 'object': {
      let fields = Object.entries(d.shape as Record<string, z.ZodType>).map(([key, s]) => fieldOf(key, s));
      // Decap checks the fields of an optional group even when the group is left empty, so they cannot be
      // required in the form; the build still refuses a group that is filled in only in part.
      if (!required) {
        fields = fields.map((f) =>
          f.required === false
            ? f
            : { ...f, required: false, hint: joinHints('Needed when this group is used.', f.hint) },
        );
      }
      return { ...base, widget: 'object', fields, collapsed: false };
    }
    case 'array':
    case 'tuple': {
      const element: z.ZodType = d.type === 'array' ? d.element : d.items[0];
      const checks = (d.checks ?? []).map((c: Def) => c._zod.def);
      let min = d.type === 'tuple' ? d.items.length : undefined;
      let max = min;
      for (const c of checks) {
        if (c.check === 'min_length') min = c.minimum;
        if (c.check === 'max_length') max = c.maximum;
        if (c.check === 'length_equals') min = max = c.length;
      }
      const item = fieldOf(name, element, labelOf(name));
      const list: CmsField = {
        ...base,
        widget: 'list',
        ...(min === undefined ? {} : { min }),
        ...(max === undefined ? {} : { max }),
      };
      if (item.widget === 'object' && item.fields) {
        const title = TITLE_FIELDS.find((t) => item.fields?.some((f) => f.name === t));
        return { ...list, fields: item.fields, ...(title ? { summary: `{{fields.${title}}}` } : {}) };
      }
      return { ...list, field: { ...item, label: labelOf(name) } };
    }
    default:
      throw new Error(`${name}: no CMS widget for a zod ${d.type}`);
  }
}

/** The frontmatter keys and whether a body follows, of one Markdown file. */
function readEntry(path: string): { keys: Record<string, unknown>; body: string } {
  const text = readFileSync(path, 'utf8');
  const m = text.match(/^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/);
  return { keys: {}, body: m ? m[2].trim() : text.trim() };
}

const markdownFiles = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.md'))
        .sort()
    : [];

/** The label of a collection's Markdown body: what the body is on the site. */
const BODY_LABELS: Record<string, string> = { faq: 'Answer', verification: 'Message', pages: 'Page text' };

/** Collections whose files an editor may add (one item per file, the order in a field). */
const CREATABLE = new Set(['faq', 'features', 'values', 'signals', 'results']);

/** The string keys of a `strings:` map in one labels file (a record in the schema: its keys are the file's). */
function recordKeys(path: string, field: string): string[] {
  const text = readFileSync(path, 'utf8');
  const front = text.match(/^---\r?\n([\s\S]*?)\r?\n---/)?.[1] ?? '';
  const block = front.split(/\r?\n/);
  const start = block.findIndex((line) => line.trimEnd() === `${field}:`);
  const keys: string[] = [];
  for (const line of block.slice(start + 1)) {
    if (!/^\s/.test(line)) break;
    const key = line.match(/^ {2}([A-Za-z][A-Za-z0-9]*):/)?.[1];
    if (key) keys.push(key);
  }
  return keys;
}

/** The Decap collection of one content collection. */
export function collectionOf(collection: ContentCollection, root = '.'): CmsCollection {
  const dir = join(root, collection.folder);
  const files = markdownFiles(dir);
  const bodies = files.map((f) => readEntry(join(dir, f)).body);
  const shape = def(collection.schema).shape as Record<string, z.ZodType>;
  const body: CmsField[] = bodies.some(Boolean)
    ? [
        {
          name: 'body',
          label: BODY_LABELS[collection.name] ?? 'Notes',
          widget: 'markdown',
          ...(bodies.every(Boolean) && collection.name !== 'pages' ? {} : { required: false }),
        },
      ]
    : [];
  const common = {
    name: collection.name,
    label: labelOf(collection.name),
    format: 'frontmatter' as const,
    ...(collection.description ? { description: collection.description } : {}),
  };
  // A map with free keys (labels' `strings`) has no Decap widget: each file gets its own form with its keys.
  const records = Object.entries(shape).filter(([, s]) => def(s).type === 'record');
  if (records.length) {
    return {
      ...common,
      files: files.map((file) => {
        const path = join(dir, file);
        const fields = Object.entries(shape).map(([key, s]) => {
          if (def(s).type !== 'record') return fieldOf(key, s);
          const value = fieldOf(key, def(s).valueType);
          const keys = recordKeys(path, key);
          return {
            name: key,
            label: labelOf(key),
            widget: 'object',
            collapsed: false,
            fields: keys.map((k) => ({ ...value, name: k, label: k })),
          };
        });
        const hasBody = readEntry(path).body !== '';
        return {
          name: file.replace(/\.md$/, ''),
          label: labelOf(file.replace(/\.md$/, '')),
          file: `${collection.folder}/${file}`,
          fields: [...fields, ...(hasBody ? [{ ...body[0], required: false }] : [])],
        };
      }),
    };
  }
  const fields = [...Object.entries(shape).map(([key, s]) => fieldOf(key, s)), ...body];
  const identifier = TITLE_FIELDS.concat(['pair', 'variant', 'brand']).find((t) => t in shape) ?? fields[0].name;
  return {
    ...common,
    folder: collection.folder,
    extension: 'md',
    create: CREATABLE.has(collection.name),
    slug: '{{slug}}',
    identifier_field: identifier,
    summary: `{{${identifier}}}`,
    ...('order' in shape ? { sortable_fields: ['order', identifier] } : {}),
    fields,
  };
}

export interface CmsOptions {
  /** The local proxy (decap-server) the dev admin writes through; none in a production build. */
  localBackendUrl?: string;
  /** owner/name of the GitHub repository editors commit to in production. */
  repo?: string;
  branch?: string;
  /** The OAuth endpoint's origin (Netlify's, or a self-hosted OAuth proxy). */
  authUrl?: string;
  /**
   * The OAuth scope Decap asks GitHub for: `public_repo` (write access to public repositories only) unless
   * the repository is private, which needs `repo` (every repository the editor can write).
   */
  authScope?: AuthScope;
  /** 'editorial_workflow': every save is a pull request instead of a commit on the branch. */
  publishMode?: string;
  /** The site's URL, for "view live" links. */
  siteUrl?: string;
}

/** The GitHub repository of the `origin` remote, when it is one. */
function originRepo(root: string): string | undefined {
  try {
    const url = execFileSync('git', ['remote', 'get-url', 'origin'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return url.match(/github\.com[:/]([^/]+\/[^/]+?)(?:\.git)?$/)?.[1];
  } catch {
    return undefined;
  }
}

export const AUTH_SCOPES = ['public_repo', 'repo'] as const;
export type AuthScope = (typeof AUTH_SCOPES)[number];

function authScopeOf(value: string | undefined): AuthScope {
  if (!value) return 'public_repo';
  if ((AUTH_SCOPES as readonly string[]).includes(value)) return value as AuthScope;
  throw new Error(`CMS_AUTH_SCOPE is "${value}": set public_repo (a public repository) or repo (a private one)`);
}

function httpsUrlOf(name: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} is "${value}", not a URL: set it to https://…`);
  }
  if (url.protocol !== 'https:') throw new Error(`${name} is "${value}": the editor needs an https:// address`);
  return value.replace(/\/$/, '');
}

/** The production settings from the build's environment (docs/editing.md, "Setting up the editor in production"). */
export function cmsOptionsFromEnv(env: NodeJS.ProcessEnv = process.env, root = '.'): CmsOptions {
  return {
    repo: env.CMS_GITHUB_REPO || originRepo(root) || 'OWNER/REPOSITORY',
    branch: env.CMS_GITHUB_BRANCH || 'main',
    authUrl: httpsUrlOf('CMS_AUTH_URL', env.CMS_AUTH_URL),
    authScope: authScopeOf(env.CMS_AUTH_SCOPE),
    publishMode: env.CMS_PUBLISH_MODE || undefined,
    siteUrl: env.SITE_URL || undefined,
  };
}

/** The whole Decap configuration. */
export function cmsConfig(options: CmsOptions = {}, root = '.'): Record<string, unknown> {
  return {
    backend: {
      name: 'github',
      repo: options.repo ?? 'OWNER/REPOSITORY',
      branch: options.branch ?? 'main',
      ...(options.authUrl ? { base_url: options.authUrl } : {}),
      auth_scope: options.authScope ?? 'public_repo',
      commit_messages: {
        create: 'Content: add {{collection}} "{{slug}}"',
        update: 'Content: edit {{collection}} "{{slug}}"',
        delete: 'Content: delete {{collection}} "{{slug}}"',
        uploadMedia: 'Content: upload "{{path}}"',
        deleteMedia: 'Content: delete "{{path}}"',
      },
    },
    ...(options.localBackendUrl ? { local_backend: { url: options.localBackendUrl } } : {}),
    ...(options.publishMode ? { publish_mode: options.publishMode } : {}),
    ...(options.siteUrl ? { site_url: options.siteUrl, display_url: options.siteUrl } : {}),
    // Uploads go under src/assets, where the build optimizes images; Markdown bodies link them relatively.
    media_folder: 'src/assets/uploads',
    public_folder: '../../src/assets/uploads',
    collections: contentCollections().map((c) => collectionOf(c, root)),
  };
}

/** config.yml: JSON is YAML, so no YAML writer is needed. */
export function renderCmsConfig(options: CmsOptions = {}, root = '.'): string {
  return `# Generated from src/content/schemas.ts by integrations/cms-config.ts: do not edit.\n${JSON.stringify(
    cmsConfig(options, root),
    null,
    2,
  )}\n`;
}

if (import.meta.main) {
  process.stdout.write(renderCmsConfig(cmsOptionsFromEnv(), resolve('.')));
}
