// Build-time content of the signed-in pages, shaped as the props their islands take (plain, serializable).
import { getEntry } from 'astro:content';
import type { SignOutTexts } from '../stores/sign-out.ts';
import { getPage, getSite } from './content.ts';
import { icons } from './icons.ts';

export interface SidebarContent {
  heading: string;
  navLabel: string;
  /** `icon` is the SVG's inner markup from src/lib/icons.ts, so the island ships no icon table. */
  links: { label: string; href: string; icon: string }[];
  labels: Record<
    | 'name'
    | 'email'
    | 'emailStatus'
    | 'verified'
    | 'unverified'
    | 'memberSince'
    | 'signOut'
    | 'collapse'
    | 'expand'
    | 'open'
    | 'close'
    | 'sheetTitle'
    | 'shortcut',
    string
  >;
  signOutIcon: string;
  toggleIcon: string;
  signOut: SignOutTexts;
}

/** What every signed-in page's island needs besides its own content. */
export interface MemberFrame {
  heading: string;
  lead?: string;
  loading: string;
  /** The route of this page, for aria-current in the sidebar. */
  current: string;
  signInHref: string;
  sidebar: SidebarContent;
}

export interface CardContent {
  title: string;
  text: string;
  badge?: string;
}

export async function getMemberFrame(slug: string, current: string, loading: string): Promise<MemberFrame> {
  const [page, site, entry] = await Promise.all([getPage(slug), getSite(), getEntry('member', 'sidebar')]);
  if (!entry) throw new Error('Missing sidebar content: create content/member/sidebar.md');
  const { heading, navLabel, links, labels, signInHref } = entry.data;
  return {
    heading: page.data.heading,
    lead: page.data.lead,
    loading,
    current,
    signInHref,
    sidebar: {
      heading,
      navLabel,
      links: links.map((link) => ({ label: link.label, href: link.href, icon: icons[link.icon] })),
      labels,
      signOutIcon: icons['log-out'],
      toggleIcon: icons['panel-left'],
      signOut: {
        signedOutTitle: site.labels.signedOutTitle,
        signedOutDescription: site.labels.signedOutDescription,
        failedTitle: site.labels.signOutFailedTitle,
        failedDescription: site.labels.signOutFailedDescription,
      },
    },
  };
}

/** A card group's heading and cards: content/card-groups/<name>.md. */
export async function getCards(name: string): Promise<{ heading: string; cards: CardContent[] }> {
  const entry = await getEntry('cardGroups', name);
  if (!entry) throw new Error(`Missing card group: create content/card-groups/${name}.md`);
  return {
    heading: entry.data.heading,
    cards: entry.data.cards.map(({ title, text, badge }) => ({ title, text, ...(badge ? { badge } : {}) })),
  };
}
