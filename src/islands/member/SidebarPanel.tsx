import { useStore } from '@nanostores/preact';
import { type ReactNode, useState } from 'react';
import type { SidebarContent } from '../../lib/member-content.ts';
import { fullName, memberSince } from '../../lib/profile.ts';
import { $profile } from '../../stores/profile.ts';
import { signOut } from '../../stores/sign-out.ts';
import SvgIcon from './SvgIcon.tsx';

interface Props {
  content: SidebarContent;
  /** The current route, marked with aria-current. */
  current: string;
  /** The session's email, shown until the profile row arrives. */
  email: string;
  /** Icons only, labels for screen readers (the 3rem rail). */
  collapsed?: boolean;
  /** Distinguishes the ids of the desktop sidebar and the mobile sheet. */
  idPrefix: string;
}

/** Profile Information, the member navigation and Sign Out: the body of the sidebar and of the mobile sheet. */
export default function SidebarPanel({ content, current, email, collapsed = false, idPrefix }: Props) {
  const { labels } = content;
  const [leaving, setLeaving] = useState(false);

  const onSignOut = async () => {
    setLeaving(true);
    if (!(await signOut(content.signOut))) setLeaving(false);
  };

  const itemClass = (active: boolean) =>
    [
      'flex min-h-12 items-center gap-3 rounded-lg font-medium no-underline transition-colors',
      collapsed ? 'justify-center px-0' : 'px-3',
      active ? 'bg-accent/15 text-accent' : 'text-white hover:bg-white/10',
    ].join(' ');

  return (
    <div className="flex flex-1 flex-col gap-6">
      {!collapsed && <ProfileInfo content={content} email={email} idPrefix={idPrefix} />}
      <nav aria-label={content.navLabel}>
        <ul className="flex list-none flex-col gap-1 p-0">
          {content.links.map((link) => {
            const active = link.href === current;
            return (
              <li key={link.href}>
                <a
                  href={link.href}
                  aria-current={active ? 'page' : undefined}
                  title={collapsed ? link.label : undefined}
                  className={itemClass(active)}
                >
                  <SvgIcon paths={link.icon} />
                  <span className={collapsed ? 'sr-only' : undefined}>{link.label}</span>
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      <div className="mt-auto border-t border-navy-700 pt-4">
        <button
          type="button"
          onClick={onSignOut}
          disabled={leaving}
          title={collapsed ? labels.signOut : undefined}
          className={`${itemClass(false)} w-full disabled:opacity-60`}
        >
          <SvgIcon paths={content.signOutIcon} />
          <span className={collapsed ? 'sr-only' : undefined}>{labels.signOut}</span>
        </button>
      </div>
    </div>
  );
}

function ProfileInfo({ content, email, idPrefix }: Pick<Props, 'content' | 'email' | 'idPrefix'>) {
  const state = useStore($profile);
  const { labels } = content;
  const profile = state.status === 'idle' ? undefined : state.profile;
  const headingId = `${idPrefix}-profile-heading`;
  const placeholder = state.status === 'error' ? '' : '…';
  const rows: [string, ReactNode][] = [
    [labels.name, profile ? fullName(profile) : placeholder],
    [labels.email, profile?.email ?? email],
    [
      labels.emailStatus,
      profile ? (
        <span
          key="status"
          className={`inline-flex rounded-full border px-2.5 py-0.5 text-sm font-semibold ${
            profile.email_verified ? 'border-accent/50 bg-accent/10 text-accent' : 'border-gold/50 bg-gold/10 text-gold'
          }`}
        >
          {profile.email_verified ? labels.verified : labels.unverified}
        </span>
      ) : (
        placeholder
      ),
    ],
    [labels.memberSince, profile ? memberSince(profile.created_at) : placeholder],
  ];
  return (
    <section aria-labelledby={headingId} aria-busy={state.status === 'loading'} className="rounded-xl bg-navy-900 p-4">
      <h2 id={headingId} className="text-sm font-semibold tracking-wide text-muted uppercase">
        {content.heading}
      </h2>
      <dl className="mt-3 space-y-2 text-sm">
        {rows.map(([term, value]) => (
          <div key={term}>
            <dt className="text-subtle">{term}</dt>
            <dd className="font-medium break-words text-white">{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
