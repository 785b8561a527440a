import { type KeyboardEvent, type RefObject, useEffect, useRef } from 'react';
import type { SidebarContent } from '../../lib/member-content.ts';
import SidebarPanel from './SidebarPanel.tsx';

interface Props {
  content: SidebarContent;
  current: string;
  email: string;
  onClose: () => void;
  /** The button that opened the sheet: focus goes back to it on close. */
  returnFocus: RefObject<HTMLButtonElement | null>;
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The sidebar below 768px: a modal sheet from the left; focus stays inside, Escape or the backdrop closes it. */
export default function SidebarSheet({ content, current, email, onClose, returnFocus }: Props) {
  const dialog = useRef<HTMLDivElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const opener = returnFocus.current;
    closeButton.current?.focus();
    document.documentElement.classList.add('overflow-hidden');
    // Back at desktop width the rail is showing, so the sheet closes.
    const wide = matchMedia('(min-width: 48rem)');
    const onWide = (event: MediaQueryListEvent) => event.matches && onClose();
    wide.addEventListener('change', onWide);
    return () => {
      wide.removeEventListener('change', onWide);
      document.documentElement.classList.remove('overflow-hidden');
      opener?.focus();
    };
  }, [onClose, returnFocus]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
      return;
    }
    if (event.key !== 'Tab' || !dialog.current) return;
    const items = [...dialog.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <div className="fixed inset-0 z-[60] md:hidden">
      <div aria-hidden="true" className="absolute inset-0 bg-black/70" onClick={onClose} />
      <div
        ref={dialog}
        role="dialog"
        aria-modal="true"
        aria-labelledby="sidebar-sheet-title"
        onKeyDown={onKeyDown}
        className="absolute inset-y-0 left-0 flex w-72 max-w-[85vw] flex-col gap-4 overflow-y-auto border-r border-navy-700 bg-navy-950 p-4"
      >
        <div className="flex items-center justify-between">
          <h2 id="sidebar-sheet-title" className="text-lg font-semibold">
            {content.labels.sheetTitle}
          </h2>
          <button
            ref={closeButton}
            type="button"
            onClick={onClose}
            aria-label={content.labels.close}
            className="flex size-12 items-center justify-center rounded-lg text-white hover:bg-white/10"
          >
            <svg
              aria-hidden="true"
              width="24"
              height="24"
              viewBox="0 0 24 24"
              fill="none"
              stroke="currentColor"
              strokeWidth={2}
              strokeLinecap="round"
            >
              <path d="M6 6l12 12M18 6L6 18" />
            </svg>
          </button>
        </div>
        <SidebarPanel content={content} current={current} email={email} idPrefix="sheet" />
      </div>
    </div>
  );
}
