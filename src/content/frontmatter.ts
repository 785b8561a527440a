// A Markdown file of content/ as Astro's own loader reads it: the YAML between the `---` lines (js-yaml's `load`)
// and the text after it. For code that reads content files outside Astro: the claims, the company details for mails,
// deploy:check, the tests.
import { load } from 'js-yaml';

/** The frontmatter block as Astro finds it: `---` at the start (after a BOM or blank lines), up to the next. */
const FRONTMATTER = /(?:^\uFEFF?|^\s*\n)---([\s\S]*?\n)---/;

/**
 * A Markdown file's frontmatter and the text after it. Without a frontmatter block: `{}` and the whole text. YAML
 * that does not parse throws js-yaml's error.
 */
export function parseFrontmatter(text: string): { frontmatter: Record<string, unknown>; content: string } {
  const raw = FRONTMATTER.exec(text)?.[1];
  if (raw === undefined) return { frontmatter: {}, content: text };
  const parsed = load(raw);
  return {
    frontmatter: parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {},
    content: text.replace(`---${raw}---`, ''),
  };
}
