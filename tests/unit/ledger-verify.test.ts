// The ledger's verifier (scripts/lib/ledger-verify.ts) over a ledger built here with node:crypto: it accepts an
// intact chain and names the first entry of every kind of break. The same check against the real stack's public
// API is in tests/integration/signals-ledger.test.ts.
import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  type Commitment,
  canonicalJson,
  GENESIS_HASH,
  type SignalTerms,
  verifyLedger,
} from '../../scripts/lib/ledger-verify.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const signal = (i: number): SignalTerms => ({
  id: `sig-${i}`,
  tier: 'momentum',
  pair: 'USD/JPY',
  direction: 'SELL',
  entry: 150.25,
  stop_loss: 150.5 + i,
  tp1: 150,
  tp2: 149.755,
  tp3: 149,
  timeframe: 'M15',
  issued_at: '2026-11-26T10:00:00.5+00:00',
});

/** A chain as the migration writes it, content hashes from the canonical JSON written out by hand. */
function ledger(n: number): { commitments: Commitment[]; signals: SignalTerms[] } {
  const signals = Array.from({ length: n }, (_, i) => signal(i + 1));
  let prev = GENESIS_HASH;
  const commitments = signals.map((s, i) => {
    const content = sha256(
      `{"id":"${s.id}","tier":"momentum","pair":"USD/JPY","direction":"SELL","entry":150.25,"stop_loss":${s.stop_loss},` +
        `"take_profit":[150,149.755,149],"timeframe":"M15","issued_at":"2026-11-26T10:00:00.500Z"}`,
    );
    const seq = i + 1;
    const c = {
      seq,
      signal_id: s.id,
      committed_at: '2026-11-26T10:00:01Z',
      content_hash: content,
      prev_hash: prev,
      hash: sha256(`${seq}:${prev}:${content}`),
    };
    prev = c.hash;
    return c;
  });
  return { commitments, signals };
}

describe('canonicalJson', () => {
  test('fixed key order, no spaces, prices without trailing zeros, UTC milliseconds and Z', () => {
    expect(canonicalJson({ ...signal(1), entry: 150.25, issued_at: '2026-11-26T12:00:00+02:00' })).toBe(
      '{"id":"sig-1","tier":"momentum","pair":"USD/JPY","direction":"SELL","entry":150.25,"stop_loss":151.5,' +
        '"take_profit":[150,149.755,149],"timeframe":"M15","issued_at":"2026-11-26T10:00:00.000Z"}',
    );
  });
});

describe('verifyLedger', () => {
  test('an intact ledger verifies, open signals (commitment only) included', async () => {
    const { commitments, signals } = ledger(4);
    expect(await verifyLedger(commitments.reverse(), signals.slice(0, 2))).toEqual({
      entries: 4,
      contentChecked: 2,
      problems: [],
    });
  });

  test.each<[string, (l: ReturnType<typeof ledger>) => void, number | null, RegExp]>([
    ['changed terms', (l) => ((l.signals[2] as SignalTerms).entry = 150.3), 3, /content does not hash/],
    [
      'a changed content hash',
      (l) => ((l.commitments[1] as Commitment).content_hash = 'a'.repeat(64)),
      2,
      /hash is not/,
    ],
    ['a removed entry', (l) => l.commitments.splice(1, 1), 3, /seq 3 where 2 was due/],
    ['a rewritten prev_hash', (l) => ((l.commitments[3] as Commitment).prev_hash = GENESIS_HASH), 4, /prev_hash/],
    ['a signal never committed', (l) => l.signals.push(signal(9)), null, /without a commitment/],
  ])('%s: the report names where it breaks', async (_name, tamper, seq, problem) => {
    const l = ledger(5);
    tamper(l);
    const report = await verifyLedger(l.commitments, l.signals);
    expect(report.problems[0]?.seq).toBe(seq);
    expect(report.problems[0]?.problem).toMatch(problem);
  });
});
