// The company block of every mail (scripts/lib/company-footer.ts): the functions' module and the auth mail templates
// hold the lines the settings give today, so an edit of content/company/company.md without `npm run gen:company`
// fails here; and the block is placed, replaced and escaped as a mail needs.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  companyFooterLines,
  FOOTER_MODULE,
  footerModule,
  TEMPLATES_DIR,
  templateNames,
  withCompanyBlock,
} from '../../scripts/lib/company-footer.ts';
import { COMPANY_FOOTER } from '../../supabase/functions/_shared/company-footer.ts';

const root = resolve(import.meta.dirname, '../..');
const lines = companyFooterLines(root);
const stale = 'out of date: run npm run gen:company';

describe('generated from the settings', () => {
  test("the functions' module holds today's lines", () => {
    expect(readFileSync(join(root, FOOTER_MODULE), 'utf8'), stale).toBe(footerModule(lines));
    expect(COMPANY_FOOTER).toEqual(lines);
    expect(lines[0]).toContain('company number');
  });

  test.each(templateNames(root))('%s holds them', (name) => {
    const text = readFileSync(join(root, TEMPLATES_DIR, name), 'utf8');
    expect(text, `${TEMPLATES_DIR}/${name} is ${stale}`).toBe(withCompanyBlock(name, text, lines));
    for (const line of lines) expect(text).toContain(name.endsWith('.html') ? line.replace(/'/g, '&#39;') : line);
  });
});

describe('placing the block', () => {
  const html = '<html>\n  <body>\n    <p>Hi</p>\n  </body>\n</html>\n';
  test('an HTML mail gets it before </body>, escaped, and a second run replaces it', () => {
    const once = withCompanyBlock('a.html', html, ['A & B <Ltd>', 'Contact: a@b.c']);
    expect(once).toContain('A &#38; B &#60;Ltd&#62;<br>Contact: a@b.c</p>');
    expect(once.indexOf('Contact:')).toBeLessThan(once.indexOf('</body>'));
    const twice = withCompanyBlock('a.html', once, ['New Ltd']);
    expect(twice).toContain('>New Ltd</p>');
    expect(twice).not.toContain('Contact: a@b.c');
    expect(twice.match(/<!-- company/g)).toHaveLength(1);
  });

  test('a plain-text mail gets it after the signature delimiter, replaced on a second run', () => {
    const once = withCompanyBlock('a.txt', 'Hello\n\nBye\n', ['One Ltd', 'Contact: x']);
    expect(once).toBe('Hello\n\nBye\n-- \nOne Ltd\nContact: x\n');
    expect(withCompanyBlock('a.txt', once, ['Two Ltd'])).toBe('Hello\n\nBye\n-- \nTwo Ltd\n');
  });
});
