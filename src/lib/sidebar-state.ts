// The signed-in sidebar's rules: its widths, the cookie that keeps it collapsed or expanded for a week,
// and the Ctrl/Cmd+B shortcut. Plain data in, data out; the Sidebar island applies them.

export const SIDEBAR_COOKIE = 'sidebar_state';
/** Seven days. */
export const SIDEBAR_COOKIE_MAX_AGE = 60 * 60 * 24 * 7;
export const SIDEBAR_SHORTCUT_KEY = 'b';
/** Below this width the sidebar is a sheet (Tailwind's md breakpoint, 48rem). */
export const SIDEBAR_MOBILE_BREAKPOINT = 768;
export const SIDEBAR_WIDTHS = { expanded: '16rem', collapsed: '3rem', mobile: '18rem' } as const;

/** Whether the sidebar is expanded, from a Cookie header or document.cookie; expanded when unset or unreadable. */
export function readSidebarExpanded(cookie: string | undefined | null): boolean {
  for (const part of (cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SIDEBAR_COOKIE) continue;
    return part.slice(eq + 1).trim() !== 'false';
  }
  return true;
}

/** The document.cookie assignment that remembers the sidebar's state for seven days on every page. */
export function sidebarCookie(expanded: boolean): string {
  return `${SIDEBAR_COOKIE}=${expanded}; path=/; max-age=${SIDEBAR_COOKIE_MAX_AGE}; SameSite=Lax`;
}

export interface ShortcutKeys {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey?: boolean;
  shiftKey?: boolean;
}

/** Ctrl+B or Cmd+B (either case, as Caps Lock gives 'B'); with Alt or Shift it is another shortcut. */
export function isSidebarShortcut(event: ShortcutKeys): boolean {
  return (
    event.key.toLowerCase() === SIDEBAR_SHORTCUT_KEY &&
    (event.ctrlKey || event.metaKey) &&
    !event.altKey &&
    !event.shiftKey
  );
}
