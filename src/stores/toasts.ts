import { atom } from 'nanostores';

// One toaster for islands and small scripts alike: they call `toast()`; the <toast-region> in the base
// layout renders `$toasts`. No React needed.

export type ToastVariant = 'default' | 'destructive';

export interface ToastInput {
  title: string;
  description?: string;
  variant?: ToastVariant;
  /** Milliseconds before it closes by itself; 0 keeps it until dismissed. */
  duration?: number;
}

export interface Toast extends Required<Omit<ToastInput, 'description'>> {
  id: number;
  description?: string;
}

export const DEFAULT_DURATION = 5000;
/** At most this many toasts show at once; the oldest goes first. */
export const MAX_TOASTS = 3;
/** sessionStorage key of toasts that wait for the next page (e.g. Sign Out reloads, then toasts). */
export const QUEUE_KEY = 'toast-queue';

export const $toasts = atom<Toast[]>([]);

let nextId = 1;

/** Shows a toast; returns its id. */
export function toast(input: ToastInput): number {
  const item: Toast = {
    id: nextId++,
    title: input.title,
    description: input.description,
    variant: input.variant ?? 'default',
    duration: input.duration ?? DEFAULT_DURATION,
  };
  $toasts.set([...$toasts.get(), item].slice(-MAX_TOASTS));
  return item.id;
}

export function dismiss(id: number): void {
  $toasts.set($toasts.get().filter((t) => t.id !== id));
}

type QueueStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

function sessionStore(): QueueStorage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    // Storage blocked by the browser: queued toasts are then shown at once instead.
    return undefined;
  }
}

/** Keeps a toast for the next page this tab loads (a navigation or reload would otherwise drop it). */
export function queueToast(input: ToastInput, storage: QueueStorage | undefined = sessionStore()): void {
  if (!storage) {
    toast(input);
    return;
  }
  const queued = readQueue(storage);
  storage.setItem(QUEUE_KEY, JSON.stringify([...queued, input]));
}

function readQueue(storage: QueueStorage): ToastInput[] {
  try {
    const value: unknown = JSON.parse(storage.getItem(QUEUE_KEY) ?? '[]');
    return Array.isArray(value)
      ? value.filter((t): t is ToastInput => typeof t === 'object' && t !== null && typeof t.title === 'string')
      : [];
  } catch {
    return [];
  }
}

/** Shows the toasts queued by the previous page, once. */
export function showQueuedToasts(storage: QueueStorage | undefined = sessionStore()): void {
  if (!storage) return;
  const queued = readQueue(storage);
  storage.removeItem(QUEUE_KEY);
  for (const t of queued) toast(t);
}
