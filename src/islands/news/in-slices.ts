import { useEffect, useState } from 'react';

/** Cards rendered in one task: two rows of three, a wide screen's first view, and a task well under 50 ms at 4x. */
export const SLICE = 6;

/**
 * `items`, rendered a slice per task: the first `size` at once, then `size` more in each later task until all are
 * shown. Twenty news cards rendered in the task their answer arrived in were one long task on a slow phone
 * (docs/performance.md); between slices the page can paint and answer a tap. A new list starts again from one slice.
 */
export function useInSlices<T>(items: T[] | null, size = SLICE): T[] | null {
  const [step, setStep] = useState({ of: items, count: size });
  const count = step.of === items ? step.count : size;
  const complete = items === null || count >= items.length;
  useEffect(() => {
    if (complete) return;
    const next = setTimeout(() => setStep({ of: items, count: count + size }), 0);
    return () => clearTimeout(next);
  }, [items, count, size, complete]);
  return items && (complete ? items : items.slice(0, count));
}
