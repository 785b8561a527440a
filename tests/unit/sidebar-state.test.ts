import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isSidebarShortcut,
  readSidebarExpanded,
  SIDEBAR_COOKIE,
  SIDEBAR_COOKIE_MAX_AGE,
  SIDEBAR_MOBILE_BREAKPOINT,
  SIDEBAR_WIDTHS,
  sidebarCookie,
} from '../../src/lib/sidebar-state.ts';

describe('sidebar constants', () => {
  it('keeps the state seven days in sidebar_state; 16rem, 3rem collapsed, 18rem sheet below 768px', () => {
    expect(SIDEBAR_COOKIE).toBe('sidebar_state');
    expect(SIDEBAR_COOKIE_MAX_AGE).toBe(604800);
    expect(SIDEBAR_WIDTHS).toEqual({ expanded: '16rem', collapsed: '3rem', mobile: '18rem' });
    expect(SIDEBAR_MOBILE_BREAKPOINT).toBe(768);
  });
});

describe('readSidebarExpanded', () => {
  it.each<[string, string | null | undefined, boolean]>([
    ['no cookies at all', '', true],
    ['undefined (no document)', undefined, true],
    ['null', null, true],
    ['collapsed', 'sidebar_state=false', false],
    ['expanded', 'sidebar_state=true', true],
    ['among other cookies', 'theme=dark; sidebar_state=false; lang=en', false],
    ['spaces around the value', 'sidebar_state= false ', false],
    ['a cookie whose name only ends like ours', 'my_sidebar_state=false', true],
    ['a cookie whose name only starts like ours', 'sidebar_state_old=false', true],
    ['an unknown value counts as expanded', 'sidebar_state=maybe', true],
    ['a name without a value', 'sidebar_state', true],
  ])('%s', (_name, cookie, expected) => {
    expect(readSidebarExpanded(cookie)).toBe(expected);
  });
});

describe('sidebarCookie', () => {
  it('writes the state for seven days on every path, SameSite=Lax', () => {
    expect(sidebarCookie(false)).toBe('sidebar_state=false; path=/; max-age=604800; SameSite=Lax');
    expect(sidebarCookie(true)).toBe('sidebar_state=true; path=/; max-age=604800; SameSite=Lax');
  });

  it('reads back what it wrote', () => {
    fc.assert(
      fc.property(fc.boolean(), (expanded) => {
        const pair = sidebarCookie(expanded).split(';')[0];
        expect(readSidebarExpanded(`a=1; ${pair}; b=2`)).toBe(expanded);
      }),
    );
  });
});

describe('isSidebarShortcut', () => {
  const keys = (key: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey', boolean>> = {}) => ({
    key,
    ctrlKey: false,
    metaKey: false,
    ...mods,
  });

  it.each<[string, ReturnType<typeof keys>, boolean]>([
    ['Ctrl+B', keys('b', { ctrlKey: true }), true],
    ['Cmd+B', keys('b', { metaKey: true }), true],
    ['Ctrl+B with Caps Lock', keys('B', { ctrlKey: true }), true],
    ['b alone (typing)', keys('b'), false],
    ['Ctrl+N', keys('n', { ctrlKey: true }), false],
    ['Ctrl+Shift+B (bookmarks bar)', keys('B', { ctrlKey: true, shiftKey: true }), false],
    ['Ctrl+Alt+B', keys('b', { ctrlKey: true, altKey: true }), false],
    ['Alt+B', keys('b', { altKey: true }), false],
  ])('%s', (_name, event, expected) => {
    expect(isSidebarShortcut(event)).toBe(expected);
  });
});
