import { describe, expect, it } from 'vitest';
import {
  type CompanyData,
  type CompanyLabels,
  companyLines,
  companyPlaceholders,
  companySchema,
  regulatoryStatement,
} from '../../src/content/company.ts';
import { copy, labels } from '../content.ts';

const filled: CompanyData = {
  registeredName: 'SignalOne Ltd',
  companyNumber: '12345678',
  placeOfRegistration: 'England and Wales',
  registeredOffice: '1 Example Street, London EC1A 1AA',
  email: 'hello@signalone.example',
};

const t = labels('company');
const words: CompanyLabels = {
  registered: t('registered'),
  registeredOffice: t('registeredOffice'),
  vatNumber: t('vatNumber'),
  contact: t('contact'),
  firmReferenceNumber: t('firmReferenceNumber'),
};

describe('companySchema', () => {
  it('takes the filled-in details, and placeholders still to be filled', () => {
    expect(companySchema.safeParse(filled).success).toBe(true);
    expect(companySchema.safeParse(copy('company/company')).success).toBe(true);
  });

  it.each<[string, Partial<CompanyData> & Record<string, unknown>, string]>([
    ['a company number of 7 digits', { companyNumber: '1234567' }, 'companyNumber'],
    ['a Scottish number in lower case', { companyNumber: 'sc123456' }, 'companyNumber'],
    ['an unknown place', { placeOfRegistration: 'London' }, 'placeOfRegistration'],
    ['an email without a domain', { email: 'hello@' }, 'email'],
    ['a VAT number without GB', { vatNumber: '123456789' }, 'vatNumber'],
    ['a field the schema does not name', { phone: '0123' }, ''],
    [
      'an appointed representative without its principal',
      { regulatoryStatus: { kind: 'appointed-representative' } },
      'regulatoryStatus.principal',
    ],
  ])('refuses %s, naming the field', (_, change, path) => {
    const result = companySchema.safeParse({ ...filled, ...change });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(path);
  });
});

describe('regulatoryStatement (GEN 4 Annex 1)', () => {
  it('is absent when no regulatory status applies', () => {
    expect(regulatoryStatement(filled)).toBeUndefined();
  });

  it.each<[CompanyData['regulatoryStatus'], string]>([
    [{ kind: 'authorised' }, 'Authorised and regulated by the Financial Conduct Authority'],
    [
      { kind: 'pra-authorised' },
      'Authorised by the Prudential Regulation Authority and regulated by the Financial Conduct Authority and the Prudential Regulation Authority',
    ],
    [
      { kind: 'appointed-representative', principal: 'Principal Firm Ltd', principalKind: 'authorised' },
      'SignalOne Ltd is an appointed representative of Principal Firm Ltd which is authorised and regulated by the Financial Conduct Authority',
    ],
  ])('%j', (regulatoryStatus, line) => {
    expect(regulatoryStatement({ ...filled, regulatoryStatus })).toBe(line);
  });
});

describe('companyLines', () => {
  it('gives the registration, the office and the contact, and VAT and status only when they apply', () => {
    expect(companyLines(filled, words)).toEqual([
      'SignalOne Ltd is a company registered in England and Wales, company number 12345678.',
      'Registered office: 1 Example Street, London EC1A 1AA',
      'Contact: hello@signalone.example',
    ]);
    const all = companyLines(
      { ...filled, vatNumber: 'GB123456789', regulatoryStatus: { kind: 'authorised', firmReferenceNumber: '123456' } },
      words,
    );
    expect(all).toContain('VAT number: GB123456789');
    expect(all.at(-1)).toBe(
      'Authorised and regulated by the Financial Conduct Authority. Financial Services Register number: 123456.',
    );
  });
});

describe('companyPlaceholders', () => {
  it('names every field still in square brackets, nested ones by their path', () => {
    expect(companyPlaceholders(filled)).toEqual([]);
    expect(
      companyPlaceholders({
        ...filled,
        companyNumber: '[Company number]',
        regulatoryStatus: { kind: 'appointed-representative', principal: '[Principal firm]' },
      }),
    ).toEqual(['companyNumber', 'regulatoryStatus.principal']);
    expect(companyPlaceholders(copy('company/company'))).toEqual([
      'registeredName',
      'companyNumber',
      'placeOfRegistration',
      'registeredOffice',
      'email',
    ]);
  });
});
