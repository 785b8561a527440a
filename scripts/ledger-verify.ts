// `npm run ledger:verify [API URL]`: checks the signals ledger from the public API as any visitor can
// (docs/ledger.md) and says which entry breaks, if any. The API defaults to PUBLIC_SUPABASE_URL or the local
// stack; the key to PUBLIC_SUPABASE_PUBLISHABLE_KEY, PUBLIC_SUPABASE_ANON_KEY or the local stack's demo key.
// Exits 0 when the ledger verifies, 1 when it breaks, 2 when it could not be read.
import { DEMO_ANON_KEY } from 'local-supabase';
import { verifyFromApi } from './lib/ledger-verify.ts';

const apiUrl = process.argv[2] || process.env.PUBLIC_SUPABASE_URL || 'http://127.0.0.1:54321';
const key = process.env.PUBLIC_SUPABASE_PUBLISHABLE_KEY || process.env.PUBLIC_SUPABASE_ANON_KEY || DEMO_ANON_KEY;

try {
  const report = await verifyFromApi(apiUrl, key);
  if (report.problems.length === 0) {
    console.log(
      `Ledger at ${apiUrl} verifies: ${report.entries} commitments chain from seq 1, ` +
        `${report.contentChecked} closed signals hash to their commitments.`,
    );
  } else {
    const first = report.problems[0];
    console.log(
      `Ledger at ${apiUrl} breaks at seq ${first?.seq ?? '-'} (signal ${first?.signal_id}): ${first?.problem}`,
    );
    for (const p of report.problems.slice(1))
      console.log(`  also seq ${p.seq ?? '-'} (signal ${p.signal_id}): ${p.problem}`);
    process.exitCode = 1;
  }
} catch (err) {
  console.error(`Could not read the ledger at ${apiUrl}: ${err instanceof Error ? err.message : err}`);
  process.exitCode = 2;
}
