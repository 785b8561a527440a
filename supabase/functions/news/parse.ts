// RSS 2.0 and Atom documents to raw feed items: title, link, date, description and image, as the feed has them.
import { XMLParser } from 'fast-xml-parser';

export interface FeedItem {
  title: string;
  /** An absolute http(s) URL, or '' when the item has none. */
  link: string;
  /** Milliseconds since the epoch; undefined when the feed gives no readable date. */
  published?: number;
  /** HTML or plain text, as the feed wrote it. */
  description: string;
  /** An absolute http(s) image URL. */
  thumbnail?: string;
  /** The feed's own title (the article's source). */
  source: string;
}

type Node = Record<string, unknown>;

const ARRAYS = new Set(['item', 'entry', 'link', 'media:thumbnail', 'media:content', 'enclosure', 'media:group']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // XML's own entities (&amp; &lt; &#8217;…) are decoded here; HTML ones (&nbsp; &eacute;) later, in text.ts.
  processEntities: true,
  htmlEntities: false,
  isArray: (name) => ARRAYS.has(name),
});

/** The text of an element that may carry attributes (`{ '#text': …, '@type': … }`) or be missing. */
function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return text(value[0]);
  if (typeof value === 'object') return text((value as Node)['#text']);
  return '';
}

const list = (value: unknown): Node[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
    (v): v is Node => typeof v === 'object' && v !== null,
  );

/** `value` as an absolute http(s) URL, else ''. Relative links resolve against the feed's own URL. */
export function httpUrl(value: string, base?: string): string {
  const trimmed = value.trim();
  if (!trimmed) return '';
  try {
    const url = base ? new URL(trimmed, base) : new URL(trimmed);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : '';
  } catch {
    return '';
  }
}

function date(...values: unknown[]): number | undefined {
  for (const value of values) {
    const t = Date.parse(text(value));
    if (!Number.isNaN(t)) return t;
  }
  return undefined;
}

const isImage = (node: Node): boolean => {
  const medium = text(node['@medium']).toLowerCase();
  const type = text(node['@type']).toLowerCase();
  if (medium) return medium === 'image';
  if (type) return type.startsWith('image/');
  return true;
};

/** media:thumbnail, else an image media:content, else an image enclosure (also inside media:group). */
function image(item: Node, base?: string): string | undefined {
  const groups = list(item['media:group']);
  const contents = [...list(item['media:content']), ...groups.flatMap((g) => list(g['media:content']))];
  const thumbnails = [
    ...list(item['media:thumbnail']),
    ...groups.flatMap((g) => list(g['media:thumbnail'])),
    ...contents.flatMap((c) => list(c['media:thumbnail'])),
  ];
  const enclosures = [
    ...list(item.enclosure),
    ...list(item.link).filter((l) => text(l['@rel']) === 'enclosure'),
  ].filter((e) => text(e['@type']).toLowerCase().startsWith('image/'));
  const candidates = [
    ...thumbnails.map((t) => text(t['@url'])),
    ...contents.filter(isImage).map((c) => text(c['@url'])),
    ...enclosures.map((e) => text(e['@url']) || text(e['@href'])),
  ];
  for (const candidate of candidates) {
    const url = httpUrl(candidate, base);
    if (url) return url;
  }
  return undefined;
}

function rssItem(item: Node, source: string, base?: string): FeedItem {
  const guid = item.guid;
  const guidIsLink =
    typeof guid === 'object' && guid !== null ? text((guid as Node)['@isPermaLink']) !== 'false' : true;
  const link = httpUrl(text(item.link), base) || (guidIsLink ? httpUrl(text(guid)) : '');
  return {
    title: text(item.title),
    link,
    published: date(item.pubDate, item['dc:date'], item['a10:updated']),
    description: text(item.description) || text(item['content:encoded']),
    thumbnail: image(item, base),
    source,
  };
}

function atomLink(entry: Node, base?: string): string {
  const links = list(entry.link);
  const alternate = links.find((l) => (text(l['@rel']) || 'alternate') === 'alternate' && text(l['@href'])) ?? links[0];
  if (alternate) return httpUrl(text(alternate['@href']), base);
  return httpUrl(text(entry.link), base);
}

function atomEntry(entry: Node, source: string, base?: string): FeedItem {
  return {
    title: text(entry.title),
    link: atomLink(entry, base),
    published: date(entry.published, entry.updated, entry.issued, entry.modified),
    // The summary is the description; the full content stands in when there is no summary.
    description: text(entry.summary) || text(entry.content),
    thumbnail: image(entry, base),
    source,
  };
}

/**
 * The items of an RSS 2.0 (also 0.9x / RDF) or Atom document. Throws when the text is not a feed.
 * `feedUrl` names the source when the feed has no title and resolves relative links.
 */
export function parseFeed(xml: string, feedUrl?: string): FeedItem[] {
  const doc = parser.parse(xml) as Node;
  const fallbackSource = feedUrl ? new URL(feedUrl).hostname.replace(/^www\./, '') : '';
  const rss = doc.rss as Node | undefined;
  const rdf = doc['rdf:RDF'] as Node | undefined;
  if (rss || rdf) {
    const channel = list(rss ? rss.channel : rdf?.channel)[0] ?? {};
    const source = text(channel.title) || fallbackSource;
    const items = list(rss ? channel.item : rdf?.item);
    return items.map((item) => rssItem(item, source, feedUrl));
  }
  const feed = doc.feed as Node | undefined;
  if (feed && typeof feed === 'object') {
    const source = text(feed.title) || fallbackSource;
    return list(feed.entry).map((entry) => atomEntry(entry, source, feedUrl));
  }
  throw new Error('not an RSS or Atom feed');
}
