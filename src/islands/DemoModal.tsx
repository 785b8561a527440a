import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { DemoCopy } from '../content/schemas.ts';
import {
  DEMO_INTERVAL_MS,
  DEMO_STAGE1_DELAY_MS,
  DEMO_STAGE2_DELAY_MS,
  demoScript,
  formatPounds,
  summarise,
} from '../lib/demo-script.ts';
import { fill } from '../lib/fill-template.ts';
import DemoModalTrades from './DemoModalTrades.tsx';

interface Props {
  copy: DemoCopy;
  /** Seeds the script: each opening plays a fresh session. */
  seed: number;
  /** Called once the dialog has closed (Escape, the close button). */
  onClose: () => void;
}

/**
 * The Live Trading Demo: a modal <dialog> (focus stays inside while open) playing a scripted session, one
 * trade every 600 ms, then stage 1 after 1 s and stage 2 (trades won, banner) 2 s later. Closing unmounts it,
 * which stops every timer.
 */
export default function DemoModal({ copy, seed, onClose }: Props) {
  const { labels } = copy;
  const dialog = useRef<HTMLDialogElement>(null);
  const script = useMemo(() => demoScript(seed), [seed]);
  const [shown, setShown] = useState(0);
  const [stage, setStage] = useState<0 | 1 | 2>(0);

  // Layout effects, both: the dialog opens, and its session's clock starts, in the task that rendered it, before the
  // browser paints (Preact runs a plain effect after the next frame).
  useLayoutEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (!element.open) element.showModal();
    element.addEventListener('close', onClose);
    element.addEventListener('keydown', trapTab);
    return () => {
      element.removeEventListener('close', onClose);
      element.removeEventListener('keydown', trapTab);
    };
  }, [onClose]);

  // The timers live outside the render cycle: each stage is scheduled by the timer before it, so the
  // stages can never overtake the trades.
  useLayoutEffect(() => {
    let count = 0;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const tick = setInterval(() => {
      count += 1;
      setShown(count);
      if (count < script.length) return;
      clearInterval(tick);
      timers.push(
        setTimeout(() => {
          setStage(1);
          timers.push(setTimeout(() => setStage(2), DEMO_STAGE2_DELAY_MS));
        }, DEMO_STAGE1_DELAY_MS),
      );
    }, DEMO_INTERVAL_MS);
    return () => {
      clearInterval(tick);
      for (const timer of timers) clearTimeout(timer);
    };
  }, [script.length]);

  const trades = script.slice(0, shown);
  const summary = summarise(trades);
  const status =
    stage === 0
      ? labels.running
      : stage === 1
        ? labels.stage1
        : fill(labels.tradesWon, { won: summary.won, total: script.length });

  return (
    <dialog
      ref={dialog}
      aria-labelledby="demo-title"
      aria-describedby="demo-intro"
      className="m-auto max-h-[calc(100dvh-1rem)] w-[calc(100%-1rem)] max-w-6xl overflow-y-auto rounded-2xl border border-navy-700 bg-navy-950 p-0 text-white shadow-2xl backdrop:bg-navy-950/85 sm:max-h-[calc(100dvh-3rem)]"
    >
      <div className="flex items-start justify-between gap-4 border-b border-navy-700 px-4 py-4 sm:px-8">
        <div>
          <h2 id="demo-title" className="text-2xl font-bold sm:text-3xl">
            {copy.title}
          </h2>
          <p id="demo-intro" className="mt-1 text-muted">
            {copy.intro}
          </p>
        </div>
        <button
          type="button"
          aria-label={labels.close}
          onClick={() => dialog.current?.close()}
          className="flex size-12 shrink-0 items-center justify-center rounded-lg hover:bg-white/10"
        >
          <svg
            aria-hidden="true"
            viewBox="0 0 24 24"
            className="size-6"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
          >
            <path d="M6 6l12 12M18 6L6 18" />
          </svg>
        </button>
      </div>

      <div className="grid gap-6 px-3 py-6 sm:px-8 lg:grid-cols-[2fr_1fr]">
        <div className="min-w-0">
          <dl className="grid grid-cols-3 gap-2 sm:gap-3">
            <Figure label={labels.totalProfit} value={formatPounds(summary.total)} positive={summary.total >= 0} />
            <Figure label={labels.activeTrades} value={String(summary.active)} />
            <Figure label={labels.avgProfit} value={formatPounds(summary.average)} positive={summary.average >= 0} />
          </dl>

          <div role="status" className="mt-4 flex min-h-12 flex-wrap items-center gap-3">
            <p className="flex items-center gap-2 font-semibold">
              {stage === 0 && (
                <span aria-hidden="true" className="size-2 rounded-full bg-accent motion-safe:animate-pulse" />
              )}
              {status}
            </p>
            {stage === 2 && summary.total > 0 && (
              <p className="rounded-full border border-accent/60 bg-accent/15 px-4 py-1.5 font-semibold text-accent">
                {labels.banner}
              </p>
            )}
          </div>

          <DemoModalTrades trades={trades} labels={labels} />
        </div>

        <aside aria-labelledby="demo-how" className="rounded-xl border border-navy-700 bg-navy-900 p-5">
          <h3 id="demo-how" className="text-lg font-semibold">
            {copy.howItWorks.heading}
          </h3>
          <ol className="mt-4 flex flex-col gap-4">
            {copy.howItWorks.steps.map((step, index) => (
              <li key={step.title} className="flex gap-3">
                <span
                  aria-hidden="true"
                  className="flex size-8 shrink-0 items-center justify-center rounded-full bg-accent font-bold text-navy-950"
                >
                  {index + 1}
                </span>
                <div>
                  <p className="font-semibold">{step.title}</p>
                  <p className="mt-1 text-sm text-muted">{step.text}</p>
                </div>
              </li>
            ))}
          </ol>
          <p className="mt-6 text-sm text-muted">{copy.disclaimer}</p>
        </aside>
      </div>
    </dialog>
  );
}

// A modal <dialog> makes the page behind it inert, but Tab can still leave for the browser's own UI:
// wrap from the last focusable control to the first and back.
function trapTab(event: KeyboardEvent) {
  if (event.key !== 'Tab') return;
  const dialog = event.currentTarget as HTMLDialogElement;
  const focusable = [...dialog.querySelectorAll<HTMLElement>('button, a[href], [tabindex="0"]')];
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (!first || !last) return;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || active === dialog)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && active === last) {
    event.preventDefault();
    first.focus();
  }
}

function Figure({ label, value, positive }: { label: string; value: string; positive?: boolean }) {
  const tone = positive === undefined ? 'text-white' : positive ? 'text-accent' : 'text-danger';
  return (
    <div className="rounded-xl border border-navy-700 bg-navy-900 px-2 py-3 sm:px-4">
      <dt className="text-xs font-semibold tracking-wide text-muted uppercase sm:text-sm">{label}</dt>
      <dd className={`mt-1 text-base font-bold whitespace-nowrap tabular-nums sm:text-2xl ${tone}`}>{value}</dd>
    </div>
  );
}
