// The subscribers and the signal engine of `npm run bench -- delivery` (scripts/bench.ts), in a worker thread so
// that neither shares the stack's event loop. It opens one WebSocket per member to the stack's Realtime endpoint
// (Phoenix protocol vsn 1.0.0, what a browser's realtime-js speaks), joins the members' private topic with each
// member's own token, then posts the signals and events through signals-ingest, signed as the engine signs them,
// at a steady pace. Every subscriber records when each broadcast reaches it; latency is from the start of the POST
// to the receipt, on one clock (this thread's). Posts 'ready' once every member has joined, then the result.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { signingKey } from '../../supabase/functions/signals-ingest/signature.ts';
import { postSigned } from '../signals-demo.ts';

export interface DeliveryJob {
  apiUrl: string;
  anonKey: string;
  /** One access token per subscriber. */
  tokens: string[];
  topic: string;
  secret: string;
  /** The posts, in order: signal.opened and signal.event payloads. */
  posts: Record<string, unknown>[];
  /** Milliseconds between two posts. */
  intervalMs: number;
}

export interface DeliveryResult {
  /** Milliseconds from each POST's start to each subscriber's receipt, for every receipt. */
  latencies: number[];
  /** Receipts expected and missing (subscribers × posts − receipts) once the wait ended. */
  expected: number;
  lost: number;
  /** POSTs that did not answer 201. */
  refused: string[];
  /** Milliseconds from the first socket opened to the last member joined. */
  joinMs: number;
  postsPerSecond: number;
}

/** The key of a post or of the broadcast it causes: what it is and its ledger id. */
const keyOfPost = (p: Record<string, unknown>) => (p.type === 'signal.opened' ? `signal:${p.id}` : `event:${p.id}`);

function keyOfBroadcast(event: string, payload: Record<string, unknown>): string | undefined {
  if (event === 'signal') return `signal:${(payload.signal as { id?: string } | null)?.id}`;
  if (event === 'signal_event') return `event:${(payload.event as { id?: string } | null)?.id}`;
  return undefined;
}

async function run(job: DeliveryJob): Promise<DeliveryResult> {
  const wsUrl = `${job.apiUrl.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${job.anonKey}&vsn=1.0.0`;
  const topic = `realtime:${job.topic}`;
  const postedAt = new Map<string, number>();
  const latencies: number[] = [];
  let received = 0;
  let joined = 0;
  const sockets: WebSocket[] = [];
  const started = performance.now();

  const allJoined = new Promise<void>((resolve, reject) => {
    job.tokens.forEach((token, n) => {
      const ws = new WebSocket(wsUrl);
      sockets.push(ws);
      ws.onopen = () =>
        ws.send(
          JSON.stringify({
            topic,
            event: 'phx_join',
            payload: {
              config: { broadcast: { self: false, ack: false }, presence: { key: '', enabled: false }, private: true },
              access_token: token,
            },
            ref: '1',
            join_ref: '1',
          }),
        );
      ws.onerror = () => reject(new Error(`subscriber ${n}: the socket failed`));
      ws.onmessage = (frame) => {
        const at = performance.now();
        const m = JSON.parse(String(frame.data)) as { event: string; payload: Record<string, unknown>; ref?: string };
        if (m.event === 'phx_reply' && m.ref === '1') {
          const status = (m.payload as { status?: string }).status;
          if (status !== 'ok') reject(new Error(`subscriber ${n}: join answered ${JSON.stringify(m.payload)}`));
          else if (++joined === job.tokens.length) resolve();
          return;
        }
        if (m.event !== 'broadcast') return;
        const inner = m.payload as { event: string; payload: Record<string, unknown> };
        const key = keyOfBroadcast(inner.event, inner.payload);
        const t0 = key === undefined ? undefined : postedAt.get(key);
        if (t0 === undefined) return;
        latencies.push(at - t0);
        received += 1;
      };
    });
  });
  await allJoined;
  const joinMs = performance.now() - started;
  // Heartbeats on the phoenix topic, as realtime-js sends them (every 25 s), so no socket is timed out mid-run.
  const heartbeat = setInterval(() => {
    for (const ws of sockets) ws.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 'hb' }));
  }, 25_000);
  parentPort?.postMessage('ready');

  const key = await signingKey(job.secret);
  const refused: string[] = [];
  const postStart = performance.now();
  const inFlight: Promise<void>[] = [];
  for (const [i, payload] of job.posts.entries()) {
    const wait = postStart + i * job.intervalMs - performance.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    postedAt.set(keyOfPost(payload), performance.now());
    inFlight.push(
      postSigned(job.apiUrl, key, payload).then(({ status, body }) => {
        if (status !== 201) refused.push(`${status} ${body}`);
      }),
    );
  }
  await Promise.all(inFlight);
  const postsPerSecond = job.posts.length / ((performance.now() - postStart) / 1000);
  const expected = job.posts.length * job.tokens.length;
  // Every receipt, or 10 s without a new one.
  let last = received;
  let quietSince = performance.now();
  while (received < expected && performance.now() - quietSince < 10_000) {
    await new Promise((done) => setTimeout(done, 100));
    if (received !== last) [last, quietSince] = [received, performance.now()];
  }
  clearInterval(heartbeat);
  for (const ws of sockets) ws.close();
  return { latencies, expected, lost: expected - received, refused, joinMs, postsPerSecond };
}

parentPort?.postMessage(await run(workerData as DeliveryJob));
