// URL building as Go's net/url does it, so redirect Locations match GoTrue's byte for byte:
// url.Values.Encode sorts keys and escapes like url.QueryEscape; URL.String keeps the path as given.

/** url.QueryEscape: only A-Z a-z 0-9 - _ . ~ stay as they are; space becomes "+". */
export function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** url.Values.Encode: keys sorted, each value escaped. */
export function encodeValues(values: Map<string, string[]>): string {
  return [...values.keys()]
    .sort()
    .flatMap((k) => (values.get(k) ?? []).map((v) => `${queryEscape(k)}=${queryEscape(v)}`))
    .join('&');
}

function parseQuery(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!raw) return out;
  for (const part of raw.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    const k = decode(eq < 0 ? part : part.slice(0, eq));
    const v = decode(eq < 0 ? '' : part.slice(eq + 1));
    out.set(k, [...(out.get(k) ?? []), v]);
  }
  return out;
}

/** A URL split the way Go's url.URL holds it: everything before "?", the query, the fragment. */
export class GoUrl {
  base: string;
  query: Map<string, string[]>;
  rawQuery: string;
  fragment: string;

  constructor(raw: string) {
    const hash = raw.indexOf('#');
    const beforeHash = hash < 0 ? raw : raw.slice(0, hash);
    this.fragment = hash < 0 ? '' : raw.slice(hash + 1);
    const q = beforeHash.indexOf('?');
    this.base = q < 0 ? beforeHash : beforeHash.slice(0, q);
    this.rawQuery = q < 0 ? '' : beforeHash.slice(q + 1);
    this.query = parseQuery(this.rawQuery);
  }

  set(key: string, value: string): this {
    this.query.set(key, [value]);
    this.rawQuery = encodeValues(this.query);
    return this;
  }

  toString(): string {
    return `${this.base}${this.rawQuery ? `?${this.rawQuery}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}

export function values(entries: Record<string, string>): Map<string, string[]> {
  return new Map(Object.entries(entries).map(([k, v]) => [k, [v]]));
}
