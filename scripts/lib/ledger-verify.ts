// Verifies the signals ledger from what anyone can read (docs/ledger.md): the commitments chain 1, 2, 3... with
// each prev_hash the previous hash and each hash the SHA-256 of '<seq>:<prev_hash>:<content_hash>'; and every
// signal the API shows (closed ones, to a visitor) hashes to its commitment's content_hash through the canonical
// JSON. No dependencies beyond fetch and WebCrypto, so the same code runs anywhere.

/** A commitment row as /rest/v1/signal_commitments gives it. */
export interface Commitment {
  seq: number;
  signal_id: string;
  committed_at: string;
  content_hash: string;
  prev_hash: string;
  hash: string;
}

/** The terms of a signal as /rest/v1/signals gives them (numbers as JSON numbers). */
export interface SignalTerms {
  id: string;
  tier: string;
  pair: string;
  direction: string;
  entry: number;
  stop_loss: number;
  tp1: number;
  tp2: number;
  tp3: number;
  timeframe: string;
  issued_at: string;
}

export interface LedgerProblem {
  seq: number | null;
  signal_id: string;
  problem: string;
}

export interface LedgerReport {
  /** Commitments read. */
  entries: number;
  /** Signals whose content was recomputed against their commitment. */
  contentChecked: number;
  /** Empty when the ledger verifies; the first is where it breaks. */
  problems: LedgerProblem[];
}

export const GENESIS_HASH = '0'.repeat(64);

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

/** Hex SHA-256 of the UTF-8 bytes of `text`. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** A price as the ledger writes it: trim_scale(x)::text, which for at most 6 decimals is JavaScript's String(x). */
function price(n: number): string {
  const text = String(n);
  if (!/^\d+(\.\d+)?$/.test(text)) throw new Error(`not a ledger price: ${text}`);
  return text;
}

/** UTC ISO-8601 with milliseconds and Z. */
function instant(text: string): string {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new Error(`not a time: ${text}`);
  return new Date(ms).toISOString();
}

/** The canonical JSON of a signal: the exact text its commitment hashes (public.signal_canonical_json). */
export function canonicalJson(s: SignalTerms): string {
  return (
    `{"id":${JSON.stringify(s.id)},"tier":${JSON.stringify(s.tier)},"pair":${JSON.stringify(s.pair)}` +
    `,"direction":${JSON.stringify(s.direction)},"entry":${price(s.entry)},"stop_loss":${price(s.stop_loss)}` +
    `,"take_profit":[${price(s.tp1)},${price(s.tp2)},${price(s.tp3)}],"timeframe":${JSON.stringify(s.timeframe)}` +
    `,"issued_at":"${instant(s.issued_at)}"}`
  );
}

/** Checks the chain and every signal given against it; `commitments` in any order. */
export async function verifyLedger(commitments: Commitment[], signals: SignalTerms[]): Promise<LedgerReport> {
  const problems: LedgerProblem[] = [];
  const chain = [...commitments].sort((a, b) => a.seq - b.seq);
  const bySignal = new Map<string, Commitment>();
  let prev = GENESIS_HASH;
  for (const [i, c] of chain.entries()) {
    const at = { seq: c.seq, signal_id: c.signal_id };
    if (c.seq !== i + 1) problems.push({ ...at, problem: `seq ${c.seq} where ${i + 1} was due (a gap or a repeat)` });
    if (c.prev_hash !== prev) problems.push({ ...at, problem: 'prev_hash is not the previous entry’s hash' });
    const expected = await sha256Hex(`${c.seq}:${c.prev_hash}:${c.content_hash}`);
    if (c.hash !== expected)
      problems.push({ ...at, problem: `hash is not SHA-256 of "${c.seq}:<prev_hash>:<content_hash>"` });
    if (bySignal.has(c.signal_id)) problems.push({ ...at, problem: 'a second commitment for this signal' });
    bySignal.set(c.signal_id, c);
    prev = c.hash;
  }
  let contentChecked = 0;
  for (const s of signals) {
    const c = bySignal.get(s.id);
    if (!c) {
      problems.push({ seq: null, signal_id: s.id, problem: 'a signal without a commitment' });
      continue;
    }
    contentChecked += 1;
    if ((await sha256Hex(canonicalJson(s))) !== c.content_hash) {
      problems.push({ seq: c.seq, signal_id: s.id, problem: 'the signal’s content does not hash to its commitment' });
    }
  }
  problems.sort((a, b) => (a.seq ?? Number.MAX_SAFE_INTEGER) - (b.seq ?? Number.MAX_SAFE_INTEGER));
  return { entries: chain.length, contentChecked, problems };
}

const PAGE = 1000;

/** Every row of a public table through /rest/v1, page by page (the API returns at most 1000 at a time). */
async function readAll<T>(apiUrl: string, key: string, table: string, select: string, order: string): Promise<T[]> {
  const rows: T[] = [];
  const headers: Record<string, string> = { apikey: key, Accept: 'application/json' };
  if (key.startsWith('eyJ')) headers.Authorization = `Bearer ${key}`;
  for (let offset = 0; ; offset += PAGE) {
    const url = `${apiUrl.replace(/\/+$/, '')}/rest/v1/${table}?select=${select}&order=${order}&limit=${PAGE}&offset=${offset}`;
    const res = await fetch(url, { headers });
    if (!res.ok) throw new Error(`${table}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as T[];
    rows.push(...page);
    if (page.length < PAGE) return rows;
  }
}

/** Reads the commitments and the signals a visitor may see (closed ones) from the public API, and verifies them. */
export async function verifyFromApi(apiUrl: string, key: string): Promise<LedgerReport> {
  const [commitments, signals] = await Promise.all([
    readAll<Commitment>(
      apiUrl,
      key,
      'signal_commitments',
      'seq,signal_id,committed_at,content_hash,prev_hash,hash',
      'seq',
    ),
    readAll<SignalTerms>(
      apiUrl,
      key,
      'signals',
      'id,tier,pair,direction,entry,stop_loss,tp1,tp2,tp3,timeframe,issued_at',
      'id',
    ),
  ]);
  return verifyLedger(commitments, signals);
}
