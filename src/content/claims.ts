// Claims: every number or comparison the site states about itself (a win rate, a delivery time, an offer, a demo
// figure) is an entry of content/claims/<id>.md with its kind, its evidence and a date to review it by. Copy never
// states one in its own words: it refers to it as `{claim:<id>}` (the claim's text) or `{claim:<id>|<words>}` (other
// words for the same claim, e.g. a heading's shorter form), in any frontmatter string or Markdown body. The build
// replaces each reference with its words (src/content.config.ts for frontmatter, the remark plugin in
// integrations/claims-remark.ts for bodies) and checks the claim as it does:
// - an unknown id always fails the build, naming the file and field that refers to it;
// - a claim without evidence (source, date, owner) or past its review date fails a production build (one for a
//   public https:// SITE_URL, or CLAIMS_CHECK=strict), naming the claim's file and field and where it is used; any
//   other build (npm start, the tests) prints a warning instead, so local work goes on with unfinished evidence.
// Free of astro:content, so the tests and the content editor's config can import it. docs/claims.md is the
// operator's guide.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'astro/zod';
import { parseFrontmatter } from './frontmatter.ts';

/** A day, YYYY-MM-DD; YAML reads an unquoted one as a date, which counts as the same day (UTC). */
const day = z.preprocess(
  (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : value),
  z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD'),
);

export const CLAIM_KINDS = ['measured', 'simulated', 'target', 'contractual', 'offer'] as const;

export const claimSchema = z.strictObject({
  /** The words the site shows where a page refers to the claim without words of its own. */
  text: z.string().trim().min(1),
  /**
   * measured: a figure from our own data (the ledger, a benchmark); simulated: from a scripted or hypothetical run;
   * target: what a tier aims at, not a result; contractual: a term of the service; offer: a time-limited price.
   */
  kind: z.enum(CLAIM_KINDS),
  /** What backs the claim; a production build refuses a claim in use without all three. */
  evidence: z
    .strictObject({
      /** Where the evidence is: a document, a page of the site, a command and its output. */
      source: z.string().trim().optional(),
      /** When the evidence was produced or last checked. */
      date: day.optional(),
      /** Who answers for it. */
      owner: z.string().trim().optional(),
    })
    .optional(),
  /** The date by which the claim must be checked again; past it, a production build refuses the claim. */
  reviewBy: day.optional(),
  /** A page of the site that shows the evidence (e.g. /track-record); pages link the claim there. */
  link: z
    .string()
    .regex(/^\/[a-z0-9-/#]*$/, 'must be a path of this site, e.g. /track-record')
    .optional(),
});

export type Claim = z.output<typeof claimSchema> & {
  id: string;
  file: string /** The file as written. */;
  raw: string;
};
export type ClaimsCheck = 'strict' | 'warn';

const CLAIM_ID = /^[a-z0-9][a-z0-9-]*$/;
/** `{claim:<id>}` or `{claim:<id>|<words>}`; words may not hold `}`. */
const REFERENCE = /\{claim:([^}|]*)(?:\|([^}]*))?\}/g;

/** Every claim of `dir` (content/claims), by id; throws naming the file when one does not match the schema. */
export function readClaims(dir: string): Map<string, Claim> {
  const claims = new Map<string, Claim>();
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.md'));
  } catch {
    return claims;
  }
  for (const name of names.sort()) {
    const file = `content/claims/${name}`;
    const id = name.slice(0, -3);
    if (!CLAIM_ID.test(id)) throw new Error(`${file}: a claim's file name must be lower-case words and hyphens`);
    const contents = readFileSync(join(dir, name), 'utf8');
    const parsed = claimSchema.safeParse(parseFrontmatter(contents).frontmatter);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${file}: ${issue.path.join('.') || 'frontmatter'} ${issue.message}`);
    }
    claims.set(id, { ...parsed.data, id, file, raw: contents });
  }
  return claims;
}

/** What keeps a claim from being published on `today` (YYYY-MM-DD): each names the field to fill in. */
export function claimProblems(claim: Claim, today: string): string[] {
  const problems: string[] = [];
  for (const field of ['source', 'date', 'owner'] as const) {
    if (!claim.evidence?.[field]) problems.push(`evidence.${field} is missing`);
  }
  if (!claim.reviewBy) problems.push('reviewBy is missing');
  else if (claim.reviewBy < today) problems.push(`reviewBy ${claim.reviewBy} has passed`);
  return problems;
}

/** Strict for a build of the public site (an https:// SITE_URL off this machine), unless CLAIMS_CHECK says. */
export function claimsCheckFor(env: Record<string, string | undefined>): ClaimsCheck {
  if (env.CLAIMS_CHECK === 'strict' || env.CLAIMS_CHECK === 'warn') return env.CLAIMS_CHECK;
  try {
    const url = new URL(env.SITE_URL ?? '');
    const local = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)$/i.test(url.hostname);
    return url.protocol === 'https:' && !local ? 'strict' : 'warn';
  } catch {
    return 'warn';
  }
}

export interface ClaimResolver {
  /** `text` with each claim reference replaced by its words; `where` names the file and field, for messages. */
  text(text: string, where: string): string;
  /** Every string inside `data` resolved as `text` does, the field's path added to `where`. */
  data<T>(data: T, where: string): T;
}

/**
 * Resolves references against `claims`. In `warn` mode a claim's problems are reported once each through `warn`;
 * in `strict` mode the first one throws. An unknown id throws in both.
 */
export function claimResolver(
  claims: Map<string, Claim>,
  { check, today, warn = console.warn }: { check: ClaimsCheck; today: string; warn?: (message: string) => void },
): ClaimResolver {
  const warned = new Set<string>();
  const use = (id: string, where: string): Claim => {
    const claim = claims.get(id);
    if (!claim) throw new Error(`${where}: {claim:${id}} names no claim: create content/claims/${id}.md`);
    const problems = claimProblems(claim, today);
    if (problems.length && check === 'strict') {
      throw new Error(`${claim.file}: ${problems.join('; ')} (used by ${where}); see docs/claims.md`);
    }
    if (problems.length && !warned.has(id)) {
      warned.add(id);
      warn(`claims: ${claim.file}: ${problems.join('; ')} (used by ${where}); a production build refuses it`);
    }
    return claim;
  };
  const text = (value: string, where: string) =>
    value.replace(REFERENCE, (_, id: string, words: string | undefined) => {
      const claim = use(id.trim(), where);
      return words?.trim() || claim.text;
    });
  const data = <T>(value: T, where: string): T => {
    if (typeof value === 'string') return text(value, where) as T;
    if (Array.isArray(value)) return value.map((v, i) => data(v, `${where}[${i}]`)) as T;
    if (value && typeof value === 'object' && !(value instanceof Date)) {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, data(v, where.endsWith(':') ? `${where} ${k}` : `${where}.${k}`)]),
      ) as T;
    }
    return value;
  };
  return { text, data };
}

/**
 * The resolver a build uses: content/claims under `root`, checked as `env` says, on today's date (UTC), with a
 * digest of the claims' files (what a cache of resolved content must be keyed by).
 */
export function buildClaimResolver(
  root: string,
  env: Record<string, string | undefined> = process.env,
): ClaimResolver & { digest: string } {
  const claims = readClaims(join(root, 'content', 'claims'));
  const hash = createHash('sha256');
  for (const claim of claims.values()) hash.update(`${claim.file}\n${claim.raw}\n`);
  return {
    ...claimResolver(claims, { check: claimsCheckFor(env), today: new Date().toISOString().slice(0, 10) }),
    digest: hash.digest('hex').slice(0, 16),
  };
}
