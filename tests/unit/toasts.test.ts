import { beforeEach, describe, expect, it } from 'vitest';
import {
  $toasts,
  DEFAULT_DURATION,
  dismiss,
  MAX_TOASTS,
  QUEUE_KEY,
  queueToast,
  showQueuedToasts,
  toast,
} from '../../src/stores/toasts.ts';

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
    items,
  };
}

beforeEach(() => $toasts.set([]));

describe('toast', () => {
  it('adds a default toast with the default duration', () => {
    const id = toast({ title: 'Welcome back!' });
    expect($toasts.get()).toEqual([{ id, title: 'Welcome back!', variant: 'default', duration: DEFAULT_DURATION }]);
  });

  it('keeps the variant, description and duration it is given', () => {
    toast({
      title: 'Error',
      description: 'Failed to sign out. Please try again.',
      variant: 'destructive',
      duration: 0,
    });
    expect($toasts.get()[0]).toMatchObject({
      title: 'Error',
      description: 'Failed to sign out. Please try again.',
      variant: 'destructive',
      duration: 0,
    });
  });

  it(`shows at most ${MAX_TOASTS}, dropping the oldest`, () => {
    for (const n of [1, 2, 3, 4]) toast({ title: `t${n}` });
    expect($toasts.get().map((t) => t.title)).toEqual(['t2', 't3', 't4']);
  });

  it('dismiss removes only that toast', () => {
    const a = toast({ title: 'a' });
    toast({ title: 'b' });
    dismiss(a);
    expect($toasts.get().map((t) => t.title)).toEqual(['b']);
  });
});

describe('queued toasts', () => {
  it('wait in storage and show once on the next page', () => {
    const storage = memoryStorage();
    queueToast({ title: 'Signed out', description: 'You have been signed out successfully.' }, storage);
    expect($toasts.get()).toEqual([]);
    showQueuedToasts(storage);
    expect($toasts.get()).toMatchObject([
      { title: 'Signed out', description: 'You have been signed out successfully.' },
    ]);
    expect(storage.items.has(QUEUE_KEY)).toBe(false);
    showQueuedToasts(storage);
    expect($toasts.get()).toHaveLength(1);
  });

  it('ignore a corrupted queue', () => {
    const storage = memoryStorage();
    storage.setItem(QUEUE_KEY, '{not json');
    showQueuedToasts(storage);
    storage.setItem(QUEUE_KEY, JSON.stringify([{ nope: 1 }, { title: 'ok' }]));
    showQueuedToasts(storage);
    expect($toasts.get().map((t) => t.title)).toEqual(['ok']);
  });

  it('show at once when there is no storage', () => {
    queueToast({ title: 'now' }, undefined);
    expect($toasts.get().map((t) => t.title)).toEqual(['now']);
  });
});
