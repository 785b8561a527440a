import { describe, expect, it } from 'vitest';
import { buildDemoScript } from '../../scripts/signals-demo.ts';
import { validatePayload } from '../../supabase/functions/signals-ingest/payload.ts';

const START = Date.parse('2026-11-26T10:00:00.250Z');
const TERMINAL = new Set(['tp3_hit', 'sl_hit', 'closed', 'expired', 'cancelled']);

describe('signals:demo script', () => {
  const steps = buildDemoScript('run1', START);

  it('posts only payloads signals-ingest accepts', () => {
    for (const { payload } of steps) {
      expect(validatePayload(payload), JSON.stringify(payload)).toMatchObject({ ok: true });
    }
  });

  it('opens a few signals of every tier first, then their events in time order over the span', () => {
    const opened = steps.filter((s) => s.payload.type === 'signal.opened');
    const events = steps.filter((s) => s.payload.type === 'signal.event');
    for (const tier of ['foundation', 'growth', 'momentum']) {
      expect(opened.filter((s) => s.payload.tier === tier).length).toBeGreaterThanOrEqual(2);
    }
    expect(steps.slice(0, opened.length)).toEqual(opened);
    expect(opened.every((s) => s.afterMs === 0)).toBe(true);
    const times = events.map((s) => s.afterMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)).toBe(120_000);
    const dated = events.map((s) => Date.parse(String(s.payload.at)));
    expect(dated).toEqual([...dated].sort((a, b) => a - b));
    expect(Math.min(...dated)).toBeGreaterThanOrEqual(Date.parse(String(opened[0]?.payload.issued_at)));
  });

  it('moves each signal as the ledger allows: forward only, nothing after it closes, some left open', () => {
    const status = new Map<string, string>();
    for (const { payload: p } of steps) {
      if (p.type === 'signal.opened') status.set(String(p.id), 'active');
      else {
        const now = status.get(String(p.signal_id));
        expect(now, `${p.id} follows its signal`).toBeDefined();
        expect(TERMINAL.has(String(now)), `${p.id} after ${now}`).toBe(false);
        if (p.kind !== 'stop_moved') status.set(String(p.signal_id), String(p.kind));
      }
    }
    const final = [...status.values()];
    expect(final.filter((s) => !TERMINAL.has(s)).length).toBeGreaterThan(0);
    expect(final).toEqual(expect.arrayContaining(['tp3_hit', 'sl_hit', 'closed', 'tp1_hit', 'active']));
  });

  it('--fast posts everything at once; ids are new on every run', () => {
    const fast = buildDemoScript('run2', START, 0);
    expect(fast.every((s) => s.afterMs === 0)).toBe(true);
    // Never dated after the moment they are posted (the start).
    const dated = fast.filter((s) => s.payload.type === 'signal.event').map((s) => Date.parse(String(s.payload.at)));
    expect(Math.max(...dated)).toBeLessThanOrEqual(START);
    expect(dated).toEqual([...dated].sort((a, b) => a - b));
    for (const { payload } of fast) expect(validatePayload(payload)).toMatchObject({ ok: true });
    const ids = [...steps, ...fast].map((s) => s.payload.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
