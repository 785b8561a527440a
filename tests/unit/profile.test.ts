import { describe, expect, it } from 'vitest';
import { memberSidebarSchema } from '../../src/content/schemas.ts';
import { fullName, memberSince, NAME_MAX_LENGTH, profileNames } from '../../src/lib/profile.ts';

describe('profileNames', () => {
  it.each<[string, string, string, string, string]>([
    ['already clean', 'Ada', 'Lovelace', 'Ada', 'Lovelace'],
    ['spaces around both', '  Grace  ', ' Hopper   ', 'Grace', 'Hopper'],
    ['tabs and new lines', '\tMary\n', '\n Somerville\t', 'Mary', 'Somerville'],
    ['inner spaces kept', ' Mary Ann ', ' de la Cruz ', 'Mary Ann', 'de la Cruz'],
    ['blank names are allowed (no other rule)', '   ', '', '', ''],
  ])('%s', (_name, first, last, expectedFirst, expectedLast) => {
    expect(profileNames(first, last)).toEqual({
      ok: true,
      names: { first_name: expectedFirst, last_name: expectedLast },
    });
  });

  it('accepts 100 characters after trimming, counting an emoji as one', () => {
    const hundred = '😀'.repeat(NAME_MAX_LENGTH);
    expect(profileNames(`  ${hundred}  `, 'x')).toEqual({ ok: true, names: { first_name: hundred, last_name: 'x' } });
  });

  it.each<[string, string, string, 'first_name' | 'last_name']>([
    ['first name of 101', 'a'.repeat(101), 'x', 'first_name'],
    ['last name of 101', 'x', 'b'.repeat(101), 'last_name'],
  ])('%s is refused, naming the field', (_name, first, last, field) => {
    expect(profileNames(first, last)).toEqual({ ok: false, field });
  });
});

describe('fullName', () => {
  it.each<[string | null, string | null, string]>([
    ['Ada', 'Lovelace', 'Ada Lovelace'],
    ['Ada', null, 'Ada'],
    [null, 'Lovelace', 'Lovelace'],
    ['  Ada ', ' ', 'Ada'],
    [null, null, ''],
  ])('%j + %j -> %j', (first, last, expected) => {
    expect(fullName({ first_name: first, last_name: last })).toBe(expected);
  });
});

describe('memberSince', () => {
  it.each([
    ['2026-11-22T10:15:00.000Z', 'UTC', '22 November 2026'],
    ['2026-01-05T00:00:00+00:00', 'UTC', '5 January 2026'],
    // Local date: late evening UTC is already the next day in Tokyo.
    ['2026-03-31T20:00:00Z', 'Asia/Tokyo', '1 April 2026'],
  ])('%s in %s -> %s', (createdAt, zone, expected) => {
    expect(memberSince(createdAt, zone)).toBe(expected);
  });

  it('gives nothing for an unreadable timestamp', () => {
    expect(memberSince('not a date', 'UTC')).toBe('');
  });
});

describe('memberSidebarSchema', () => {
  const labels = {
    name: 'Name',
    email: 'Email',
    emailStatus: 'Email status',
    verified: 'Verified',
    unverified: 'Unverified',
    memberSince: 'Member since',
    signOut: 'Sign Out',
    collapse: 'Collapse sidebar',
    expand: 'Expand sidebar',
    open: 'Open account menu',
    close: 'Close account menu',
    sheetTitle: 'Account menu',
    shortcut: 'Ctrl+B',
  };
  const sidebar = {
    heading: 'Profile Information',
    navLabel: 'Account',
    links: [{ label: 'Dashboard', href: '/dashboard', icon: 'layout-dashboard' }],
    signInHref: '/auth',
    labels,
  };

  it('accepts a complete sidebar', () => {
    expect(memberSidebarSchema.safeParse(sidebar).success).toBe(true);
  });

  it.each<[string, unknown, string]>([
    ['an unknown icon', { ...sidebar, links: [{ ...sidebar.links[0], icon: 'nope' }] }, 'links.0.icon'],
    ['a relative link', { ...sidebar, links: [{ ...sidebar.links[0], href: 'dashboard' }] }, 'links.0.href'],
    ['no links', { ...sidebar, links: [] }, 'links'],
    ['a missing label', { ...sidebar, labels: { ...labels, verified: undefined } }, 'labels.verified'],
    ['a blank heading', { ...sidebar, heading: '  ' }, 'heading'],
  ])('rejects %s, naming the field', (_name, data, path) => {
    const result = memberSidebarSchema.safeParse(data);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(path);
  });
});
