// Request headers PostgREST reads: Prefer, Accept, Range, Accept-Profile / Content-Profile, Content-Type.
import { errors } from './errors.ts';

export interface Preferences {
  return?: 'minimal' | 'representation' | 'headers-only';
  count?: 'exact' | 'planned' | 'estimated';
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
  missing?: 'default' | 'null';
  handling?: 'strict' | 'lenient';
  maxAffected?: number;
  tx?: 'commit' | 'rollback';
  timezone?: string;
  /** params=single-object: an RPC's whole JSON body is its one json/jsonb argument. */
  params?: 'single-object';
  /** Preferences not understood; an error only with handling=strict. */
  invalid: string[];
}

/** All Prefer headers (supabase-js may send several, or one comma-separated list). */
export function parsePrefer(values: string[]): Preferences {
  const prefs: Preferences = { invalid: [] };
  const items = values
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    const [rawKey, ...rest] = item.split('=');
    const key = rawKey.trim();
    const value = rest.join('=').trim();
    if (key === 'return' && (value === 'minimal' || value === 'representation' || value === 'headers-only')) {
      prefs.return = value;
    } else if (key === 'count' && (value === 'exact' || value === 'planned' || value === 'estimated')) {
      prefs.count = value;
    } else if (key === 'resolution' && (value === 'merge-duplicates' || value === 'ignore-duplicates')) {
      prefs.resolution = value;
    } else if (key === 'missing' && (value === 'default' || value === 'null')) {
      prefs.missing = value;
    } else if (key === 'handling' && (value === 'strict' || value === 'lenient')) {
      prefs.handling = value;
    } else if (key === 'max-affected' && /^\d+$/.test(value)) {
      prefs.maxAffected = Number(value);
    } else if (key === 'tx' && (value === 'commit' || value === 'rollback')) {
      prefs.tx = value;
    } else if (key === 'params' && value === 'single-object') {
      prefs.params = value;
    } else if (key === 'timezone' && value) {
      prefs.timezone = value;
    } else {
      prefs.invalid.push(item);
    }
  }
  if (prefs.handling === 'strict' && prefs.invalid.length > 0) throw errors.invalidPreferences(prefs.invalid);
  return prefs;
}

/** The preferences that were honoured, for the Preference-Applied header. */
export function appliedPreferences(
  prefs: Preferences,
  kinds: ('return' | 'count' | 'resolution' | 'missing' | 'handling' | 'max-affected' | 'tx')[],
): string | undefined {
  const out: string[] = [];
  for (const k of kinds) {
    if (k === 'return' && prefs.return) out.push(`return=${prefs.return}`);
    if (k === 'count' && prefs.count) out.push(`count=${prefs.count}`);
    if (k === 'resolution' && prefs.resolution) out.push(`resolution=${prefs.resolution}`);
    if (k === 'missing' && prefs.missing) out.push(`missing=${prefs.missing}`);
    if (k === 'handling' && prefs.handling) out.push(`handling=${prefs.handling}`);
    if (k === 'tx' && prefs.tx) out.push(`tx=${prefs.tx}`);
    if (k === 'max-affected' && prefs.maxAffected !== undefined && prefs.handling === 'strict') {
      out.push(`max-affected=${prefs.maxAffected}`);
    }
  }
  return out.length ? out.join(', ') : undefined;
}

export interface Negotiated {
  /** One JSON object instead of an array (application/vnd.pgrst.object+json). */
  single: boolean;
  stripNulls: boolean;
  contentType: string;
}

/** Picks the first acceptable media type of the Accept header; 406 PGRST107 when there is none. */
export function negotiate(accept: string | undefined): Negotiated {
  const ranges = (accept ?? '*/*')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ranges.length === 0) ranges.push('*/*');
  for (const range of ranges) {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    const stripNulls = params.includes('nulls=stripped');
    switch (type) {
      case '*/*':
      case 'application/*':
      case 'application/json':
        return { single: false, stripNulls: false, contentType: 'application/json; charset=utf-8' };
      case 'application/vnd.pgrst.array+json':
        return {
          single: false,
          stripNulls,
          contentType: `application/vnd.pgrst.array+json${stripNulls ? ';nulls=stripped' : ''}; charset=utf-8`,
        };
      case 'application/vnd.pgrst.object+json':
        return {
          single: true,
          stripNulls,
          contentType: `application/vnd.pgrst.object+json${stripNulls ? ';nulls=stripped' : ''}; charset=utf-8`,
        };
    }
  }
  throw errors.mediaType(ranges.map((r) => r.split(';')[0].trim()));
}

/** `Range: 0-9` (optionally `items=0-9`): an inclusive row range, upper bound optional. */
export function parseRangeHeader(value: string | undefined): { lower: number; upper?: number } | undefined {
  if (!value) return undefined;
  const m = /^\s*(?:items=)?(\d+)-(\d*)\s*$/.exec(value);
  if (!m) return undefined;
  const lower = Number(m[1]);
  const upper = m[2] === '' ? undefined : Number(m[2]);
  if (upper !== undefined && lower > upper) {
    throw errors.invalidRange(
      'The lower boundary must be lower than or equal to the upper boundary in the Range header.',
    );
  }
  return { lower, upper };
}

/** Only schema `public` is exposed, as in supabase/config.toml. */
export function checkProfile(value: string | undefined): void {
  if (value !== undefined && value !== '' && value !== 'public') throw errors.invalidSchema(value);
}

/** Write bodies are JSON; no Content-Type at all is taken as JSON, as PostgREST does. */
export function checkJsonContentType(value: string | undefined): void {
  if (value === undefined || value.trim() === '') return;
  const type = value.split(';')[0].trim().toLowerCase();
  if (
    type === 'application/json' ||
    type === 'application/vnd.pgrst.object+json' ||
    type === 'application/vnd.pgrst.object'
  )
    return;
  throw errors.contentType(value.split(';')[0].trim());
}
