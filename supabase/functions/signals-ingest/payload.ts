// What the engine posts, checked before the ledger sees it: a new signal (`signal.opened`) or an event of one
// (`signal.event`), with exactly the keys below. The ledger's constraints (supabase/migrations/
// 20261126200000_signals_ledger.sql) hold the same rules; checking here names the field in a 400.
import { z } from 'zod';

/** The engine's ids: letters, digits and . _ : - (at most 64), as the ledger's id columns allow. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
/** A pair as the site writes it: base and quote currency, upper case, a slash between ('EUR/USD'). */
export const PAIR_PATTERN = /^([A-Z]{3})\/([A-Z]{3})$/;
/** ISO-8601 with a zone (Z or ±hh:mm), seconds, and at most milliseconds. */
const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;

export const TIERS = ['foundation', 'growth', 'momentum'] as const;
export const TIMEFRAMES = ['M5', 'M15', 'M30', 'H1', 'H4', 'D1'] as const;
export const EVENT_KINDS = [
  'tp1_hit',
  'tp2_hit',
  'tp3_hit',
  'sl_hit',
  'stop_moved',
  'closed',
  'expired',
  'cancelled',
] as const;
/** Events that fix a result and so need the price. */
const PRICED = new Set(['tp1_hit', 'tp2_hit', 'tp3_hit', 'sl_hit', 'closed']);

const id = z.string().regex(ID_PATTERN, 'must be 1 to 64 letters, digits, dots, underscores, colons or hyphens');

/** A price: a JSON number above 0 and below a million, with at most 6 decimals. */
const price = z
  .number({ error: 'must be a number' })
  .positive('must be above 0')
  .lt(1_000_000, 'must be below 1000000')
  .refine((n) => /^\d+(\.\d{1,6})?$/.test(String(n)), 'must have at most 6 decimals');

const instant = z
  .string()
  .regex(INSTANT_PATTERN, 'must be an ISO-8601 time with a zone, e.g. 2026-11-26T10:00:00.000Z')
  .refine((s) => Number.isFinite(Date.parse(s)), 'must be a real time')
  .transform((s) => new Date(s).toISOString());

export const signalOpenedSchema = z
  .strictObject({
    type: z.literal('signal.opened'),
    id,
    tier: z.enum(TIERS, `must be one of ${TIERS.join(', ')}`),
    pair: z
      .string()
      .regex(PAIR_PATTERN, 'must be written as the site writes pairs, e.g. EUR/USD')
      .refine((p) => p.slice(0, 3) !== p.slice(4), 'must name two different currencies'),
    direction: z.enum(['BUY', 'SELL'], 'must be BUY or SELL'),
    entry: price,
    stop_loss: price,
    take_profit: z.tuple([price, price, price], 'must be three prices: TP1, TP2, TP3'),
    timeframe: z.enum(TIMEFRAMES, `must be one of ${TIMEFRAMES.join(', ')}`),
    issued_at: instant,
  })
  .superRefine((s, ctx) => {
    const buy = s.direction === 'BUY';
    if (buy ? s.stop_loss >= s.entry : s.stop_loss <= s.entry) {
      ctx.addIssue({
        code: 'custom',
        path: ['stop_loss'],
        message: `must be ${buy ? 'below' : 'above'} entry for a ${s.direction}`,
      });
      return;
    }
    const [tp1, tp2, tp3] = s.take_profit;
    const ordered = buy ? s.entry < tp1 && tp1 < tp2 && tp2 < tp3 : s.entry > tp1 && tp1 > tp2 && tp2 > tp3;
    if (!ordered) {
      ctx.addIssue({
        code: 'custom',
        path: ['take_profit'],
        message: `must run ${buy ? 'up' : 'down'} from entry: TP1, then TP2, then TP3`,
      });
    }
  });

export const signalEventSchema = z
  .strictObject({
    type: z.literal('signal.event'),
    id,
    signal_id: id,
    kind: z.enum(EVENT_KINDS, `must be one of ${EVENT_KINDS.join(', ')}`),
    price: price.nullish(),
    at: instant,
    stop_loss: price.optional(),
  })
  .superRefine((e, ctx) => {
    if (PRICED.has(e.kind) && e.price == null) {
      ctx.addIssue({ code: 'custom', path: ['price'], message: `is required for ${e.kind}` });
    }
    if ((e.stop_loss !== undefined) !== (e.kind === 'stop_moved')) {
      ctx.addIssue({
        code: 'custom',
        path: ['stop_loss'],
        message: e.kind === 'stop_moved' ? 'is required for stop_moved' : 'is only for stop_moved',
      });
    }
  });

export type SignalOpened = z.output<typeof signalOpenedSchema>;
export type SignalEvent = z.output<typeof signalEventSchema>;
export type IngestPayload = SignalOpened | SignalEvent;

export type PayloadCheck = { ok: true; payload: IngestPayload } | { ok: false; field: string; error: string };

/** The payload, or its first problem: the field (the JSON key) and a sentence naming it. */
export function validatePayload(input: Record<string, unknown>): PayloadCheck {
  const schema =
    input.type === 'signal.opened' ? signalOpenedSchema : input.type === 'signal.event' ? signalEventSchema : null;
  if (!schema) return { ok: false, field: 'type', error: 'type must be signal.opened or signal.event.' };
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, payload: result.data };
  const issue = result.error.issues[0];
  const key = issue?.code === 'unrecognized_keys' ? String(issue.keys[0]) : String(issue?.path[0] ?? '');
  if (issue?.code === 'unrecognized_keys')
    return { ok: false, field: key, error: `${key} is not a field of ${input.type}.` };
  const message = issue?.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue?.message;
  return { ok: false, field: key, error: `${key} ${message ?? 'is not valid'}.` };
}
