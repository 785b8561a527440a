// The company's details, from one settings file (content/company/company.md): the frontmatter's schema, the
// statutory status line as FCA's GEN 4 Annex 1 words it, the block's lines as the footer shows them, and the
// placeholders `npm run deploy:check` refuses. Free of astro:content, as ./schemas.ts, so scripts can import it.
import { z } from 'astro/zod';

/** A value still to be filled in: text in square brackets, such as "[Company number]". */
export const PLACEHOLDER = /\[[^\]]*\]/;
const PLACEHOLDER_SOURCE = String.raw`\[[^\]]*\]`;

/** A text that is either still a placeholder or matches `pattern` (one regex, so the content editor checks it too). */
const filledOr = (pattern: string, message: string) =>
  z
    .string()
    .trim()
    .min(1)
    .regex(new RegExp(`^(?:${PLACEHOLDER_SOURCE}|${pattern})$`), message);

const text = z.string().trim().min(1);

/** Who is authorised: the firm itself (not PRA-authorised, or PRA-authorised). */
export const firmKinds = ['authorised', 'pra-authorised'] as const;

/** GEN 4 Annex 1R / Annex 1AR: the required disclosure of a firm of each kind, with the full regulators' names. */
export const FIRM_DISCLOSURE: Record<(typeof firmKinds)[number], string> = {
  authorised: 'Authorised and regulated by the Financial Conduct Authority',
  'pra-authorised':
    'Authorised by the Prudential Regulation Authority and regulated by the Financial Conduct Authority and the Prudential Regulation Authority',
};

export const companySchema = z
  .strictObject({
    /** The name on the register, with Limited or Ltd. */
    registeredName: text,
    /** Companies House number: 8 digits, or 2 letters and 6 digits (SC123456, NI123456). */
    companyNumber: filledOr(String.raw`\d{8}|[A-Z]{2}\d{6}`, 'must be 8 digits, or 2 letters and 6 digits'),
    placeOfRegistration: filledOr(
      'England and Wales|Scotland|Northern Ireland',
      'must be England and Wales, Scotland or Northern Ireland',
    ),
    /** The registered office, as one line. */
    registeredOffice: text,
    email: filledOr(String.raw`[^\s@]+@[^\s@]+\.[^\s@]+`, 'must be an email address'),
    /** Only if the company is registered for VAT: GB and 9 (or 12) digits. */
    vatNumber: filledOr(String.raw`GB\d{9}(?:\d{3})?`, 'must be GB and 9 or 12 digits').optional(),
    /**
     * Only if the company is authorised by the FCA, or is an appointed representative of a firm that is: the
     * statutory status line is then worded from this, as GEN 4 Annex 1 gives it. Leave it out otherwise.
     */
    regulatoryStatus: z
      .strictObject({
        kind: z.enum([...firmKinds, 'appointed-representative']),
        /** An appointed representative's principal firm, by its registered name. */
        principal: text.optional(),
        /** What the principal firm is (for an appointed representative). */
        principalKind: z.enum(firmKinds).optional(),
        /** The Financial Services Register number (the principal's, for an appointed representative). */
        firmReferenceNumber: filledOr(String.raw`\d{6,7}`, 'must be 6 or 7 digits').optional(),
      })
      .optional(),
  })
  .superRefine((company, ctx) => {
    const status = company.regulatoryStatus;
    if (status?.kind !== 'appointed-representative') return;
    for (const key of ['principal', 'principalKind'] as const) {
      if (status[key] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['regulatoryStatus', key],
          message: 'an appointed representative names its principal firm (principal) and what it is (principalKind)',
        });
      }
    }
  });

export type CompanyData = z.infer<typeof companySchema>;

/** The statutory status line, worded as GEN 4 Annex 1 gives it, or undefined when no regulatory status applies. */
export function regulatoryStatement(company: CompanyData): string | undefined {
  const status = company.regulatoryStatus;
  if (!status) return undefined;
  if (status.kind !== 'appointed-representative') return FIRM_DISCLOSURE[status.kind];
  const firm = FIRM_DISCLOSURE[status.principalKind ?? 'authorised'];
  // "[Name of appointed representative] is an appointed representative of [name of firm] which is [the firm's]".
  return `${company.registeredName} is an appointed representative of ${status.principal} which is ${firm[0].toLowerCase()}${firm.slice(1)}`;
}

/** The words around the values: content/labels/company.md. */
export interface CompanyLabels {
  registered: string;
  registeredOffice: string;
  vatNumber: string;
  contact: string;
  firmReferenceNumber: string;
}

/**
 * The block's lines, in order, as plain text: the same for the site's footer and a mail's. `registered` holds
 * {name}, {place} and {number}.
 */
export function companyLines(company: CompanyData, labels: CompanyLabels): string[] {
  const status = regulatoryStatement(company);
  const frn = company.regulatoryStatus?.firmReferenceNumber;
  return [
    labels.registered
      .replace('{name}', company.registeredName)
      .replace('{place}', company.placeOfRegistration)
      .replace('{number}', company.companyNumber),
    `${labels.registeredOffice} ${company.registeredOffice}`,
    ...(company.vatNumber ? [`${labels.vatNumber} ${company.vatNumber}`] : []),
    `${labels.contact} ${company.email}`,
    ...(status ? [`${status}.${frn ? ` ${labels.firmReferenceNumber} ${frn}.` : ''}`] : []),
  ];
}

/** The fields that still hold a placeholder, by their path in the file (`regulatoryStatus.principal`). */
export function companyPlaceholders(data: unknown, path: string[] = []): string[] {
  if (typeof data === 'string') return PLACEHOLDER.test(data) ? [path.join('.')] : [];
  if (data && typeof data === 'object') {
    return Object.entries(data).flatMap(([key, value]) => companyPlaceholders(value, [...path, key]));
  }
  return [];
}
