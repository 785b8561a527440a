// `npm run gen:company`: writes the company block of every mail from content/company/company.md and
// content/labels/company.md (scripts/lib/company-footer.ts): the functions' module and the auth mail templates.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  companyFooterLines,
  FOOTER_MODULE,
  footerModule,
  TEMPLATES_DIR,
  templateNames,
  withCompanyBlock,
} from './lib/company-footer.ts';

const root = resolve(import.meta.dirname, '..');
const lines = companyFooterLines(root);
writeFileSync(join(root, FOOTER_MODULE), footerModule(lines));
for (const name of templateNames(root)) {
  const file = join(root, TEMPLATES_DIR, name);
  writeFileSync(file, withCompanyBlock(name, readFileSync(file, 'utf8'), lines));
}
console.log(`${FOOTER_MODULE} and ${templateNames(root).length} templates: ${lines.length} lines`);
