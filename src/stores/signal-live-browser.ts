// The live source's socket, for real: @supabase/realtime-js's RealtimeClient alone (what supabase-js's
// createClient() would build, without the rest of it), on the project's /realtime/v1 with the public key, joined
// to the private topic with the member's access token. The token comes from the auth client on every connect and
// heartbeat, and is pushed again the moment supabase-js refreshes it, so the server never holds an expired one.
import { type RealtimeChannel, RealtimeClient } from '@supabase/realtime-js';
import { SUPABASE_KEY } from './api-key.ts';
import { SUPABASE_URL } from './auth.ts';
import type { EventMessage, LiveInput, LiveSocket, SignalMessage } from './signal-live.ts';
import { HEARTBEAT_MS, SIGNALS_TOPIC } from './signal-live.ts';
import type { BrowserClient } from './supabase.ts';

/** The Realtime endpoint of the project: https://x.supabase.co -> wss://x.supabase.co/realtime/v1. */
export const realtimeUrl = (projectUrl: string) =>
  `${projectUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/realtime/v1`;

/**
 * A fresh RealtimeClient for each join, dropped whole on leave: the live source times every rejoin itself (1, 2, 5,
 * 10 s), so nothing of realtime-js's own retrying (a socket reconnecting, a channel rejoining) outlives a leave.
 */
export function browserLiveSocket(client: BrowserClient): LiveSocket {
  let current: { rt: RealtimeClient; channel: RealtimeChannel; stopAuth: () => void } | undefined;

  return {
    join(on: (input: LiveInput) => void) {
      const rt = new RealtimeClient(realtimeUrl(SUPABASE_URL), {
        params: { apikey: SUPABASE_KEY },
        heartbeatIntervalMs: HEARTBEAT_MS,
        accessToken: async () => (await client.auth.getSession()).data.session?.access_token ?? null,
      });
      const { data } = client.auth.onAuthStateChange((event, session) => {
        // The new token straight from the event: calling back into the auth client from its own callback would
        // wait on its lock.
        if (session && (event === 'TOKEN_REFRESHED' || event === 'SIGNED_IN')) void rt.setAuth(session.access_token);
      });
      const channel = rt.channel(SIGNALS_TOPIC, { config: { private: true } });
      const mine = { rt, channel, stopAuth: () => data.subscription.unsubscribe() };
      const live = () => current === mine;
      channel
        .on('broadcast', { event: 'signal' }, (message) => {
          if (live()) on({ type: 'signal', message: message.payload as SignalMessage });
        })
        .on('broadcast', { event: 'signal_event' }, (message) => {
          if (live()) on({ type: 'event', message: message.payload as EventMessage });
        });
      current = mine;
      // The member's token first, so the join carries it: a private channel joined without one is refused.
      rt.setAuth().then(
        () => {
          if (!live()) return;
          channel.subscribe((status, err) => {
            if (!live()) return;
            if (status === 'SUBSCRIBED') on({ type: 'joined' });
            else {
              if (err) console.error(`Signals channel ${status}:`, err);
              on({ type: 'lost' });
            }
          });
        },
        () => live() && on({ type: 'lost' }),
      );
    },
    leave() {
      const old = current;
      current = undefined;
      if (!old) return;
      old.stopAuth();
      old.channel.teardown();
      void old.rt.disconnect();
    },
  };
}
