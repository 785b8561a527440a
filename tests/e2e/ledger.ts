// Posts to the signals ledger as the engine does: through the signals-ingest function of the e2e stack, signed with
// its development secret (docs/ledger.md).
import { expect } from '@playwright/test';
import { sign, signingKey } from '../../supabase/functions/signals-ingest/signature.ts';
import { API, SIGNALS_INGEST_SECRET } from './env.ts';

/** Posts one `signal.opened` or `signal.event` body, signed now, and expects it stored (201). */
export async function postToLedger(body: Record<string, unknown>): Promise<void> {
  const raw = JSON.stringify(body);
  const ts = String(Math.floor(Date.now() / 1000));
  const res = await fetch(`${API}/functions/v1/signals-ingest`, {
    method: 'POST',
    body: raw,
    headers: {
      'Content-Type': 'application/json',
      'X-Signal-Timestamp': ts,
      'X-Signal-Signature': await sign(await signingKey(SIGNALS_INGEST_SECRET), ts, raw),
    },
  });
  expect(res.status, await res.text()).toBe(201);
}
