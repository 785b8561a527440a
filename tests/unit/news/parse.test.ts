import { describe, expect, test } from 'vitest';
import { httpUrl, parseFeed } from '../../../supabase/functions/news/parse.ts';
import { fixture, IMAGES } from './fixtures.ts';

const byLink = (items: ReturnType<typeof parseFeed>, link: string) => {
  const found = items.find((i) => i.link === link);
  if (!found) throw new Error(`no item ${link}`);
  return found;
};

describe('RSS 2.0', () => {
  const items = parseFeed(fixture('business.xml'), 'https://business.example.com/rss');

  test('every item is read, with the channel title as source', () => {
    expect(items).toHaveLength(8);
    expect(new Set(items.map((i) => i.source))).toEqual(new Set(['Fixture Business']));
  });

  test('CDATA title and description come through as written', () => {
    const item = byLink(items, 'https://business.example.com/stocks-rally');
    expect(item.title).toBe('Stocks rally as markets gain & profits surge');
    expect(item.description).toContain('<p>Shares <b>rose</b>');
    expect(item.published).toBe(Date.parse('2026-11-22T09:00:00Z'));
  });

  test('XML entities are decoded once, leaving escaped HTML for the text step', () => {
    const item = byLink(items, 'https://business.example.com/pound-slide');
    expect(item.title).toBe('Pound &amp; euro slide as recession fears deepen');
    expect(item.description).toBe(
      '<p>Sterling fell &mdash; again &hellip; on weak data.</p><img src="https://business.example.com/i.png">',
    );
  });

  test('image: media:thumbnail first, else media:content, else an image enclosure, else none', () => {
    expect(byLink(items, 'https://business.example.com/stocks-rally').thumbnail).toBe(`${IMAGES}/thumb-thumbnail.png`);
    expect(byLink(items, 'https://business.example.com/pound-slide').thumbnail).toBe(`${IMAGES}/thumb-content.png`);
    expect(byLink(items, 'https://business.example.com/oil-steady').thumbnail).toBe(`${IMAGES}/thumb-enclosure.png`);
    expect(byLink(items, 'https://business.example.com/no-picture').thumbnail).toBeUndefined();
  });

  test('a javascript: link is read as no link', () => {
    expect(items.find((i) => i.title === 'Script link is dropped')?.link).toBe('');
  });

  test('guid stands in for a missing link unless it is not a permalink', () => {
    const xml = `<rss version="2.0"><channel><title>T</title>
      <item><title>a</title><guid>https://g.example.com/a</guid></item>
      <item><title>b</title><guid isPermaLink="false">https://g.example.com/b</guid></item></channel></rss>`;
    expect(parseFeed(xml).map((i) => i.link)).toEqual(['https://g.example.com/a', '']);
  });

  test('a single item (not a list) and a feed without a title, named after its host', () => {
    const xml = '<rss><channel><item><title>Only</title><link>/relative</link></item></channel></rss>';
    expect(parseFeed(xml, 'https://www.feeds.example.org/x.xml')).toEqual([
      expect.objectContaining({
        title: 'Only',
        link: 'https://www.feeds.example.org/relative',
        source: 'feeds.example.org',
      }),
    ]);
  });

  test('a bad date is undefined, a dc:date is read', () => {
    const xml = `<rss xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>T</title>
      <item><title>a</title><link>https://a.example</link><pubDate>not a date</pubDate></item>
      <item><title>b</title><link>https://b.example</link><dc:date>2026-01-02T03:04:05Z</dc:date></item></channel></rss>`;
    expect(parseFeed(xml).map((i) => i.published)).toEqual([undefined, Date.parse('2026-01-02T03:04:05Z')]);
  });
});

describe('Atom', () => {
  const items = parseFeed(fixture('markets.atom'), 'https://markets.example.com/feed.atom');

  test('entries with the feed title as source and the alternate link', () => {
    expect(items).toHaveLength(7);
    const first = items[0];
    expect(first.source).toBe('Fixture Markets');
    expect(first.link).toBe('https://markets.example.com/dollar-climbs');
    expect(first.title).toBe('Dollar <em>climbs</em> to a record high');
  });

  test('summary is the description; content stands in when there is no summary', () => {
    expect(items[0].description).toBe('<p>The summary wins over the content &ndash; always.</p>');
    expect(byLink(items, 'https://markets.example.com/yen-weakens').description).toBe(
      '<div>Only content here, so it is the description.</div>',
    );
  });

  test('published, else updated, is the date', () => {
    expect(items[0].published).toBe(Date.parse('2026-11-22T08:30:00Z'));
    expect(byLink(items, 'https://markets.example.com/yen-weakens').published).toBe(Date.parse('2026-11-21T20:00:00Z'));
  });

  test('an image enclosure link is the thumbnail', () => {
    expect(items[0].thumbnail).toBe(`${IMAGES}/thumb-atom.png`);
  });
});

describe('not a feed', () => {
  test.each([
    ['HTML', '<html><body>Not a feed</body></html>'],
    ['empty', ''],
  ])('%s throws', (_name, text) => {
    expect(() => parseFeed(text)).toThrow('not an RSS or Atom feed');
  });
});

describe('httpUrl', () => {
  test.each([
    ['https://a.example/x', 'https://a.example/x'],
    ['  http://a.example/x  ', 'http://a.example/x'],
    ['javascript:alert(1)', ''],
    ['data:text/html,hi', ''],
    ['ftp://a.example/x', ''],
    ['not a url', ''],
    ['', ''],
  ])('%s -> %s', (input, expected) => {
    expect(httpUrl(input)).toBe(expected);
  });
});

describe('entity limits', () => {
  test('a big feed full of escaped HTML is read whole', () => {
    const desc = '&lt;p&gt;x&amp;amp;y&lt;/p&gt;'.repeat(2000);
    const xml = `<rss><channel><title>T</title><item><title>a &amp; b</title><link>https://a.example/1</link><description>${desc}</description></item></channel></rss>`;
    const [item] = parseFeed(xml);
    expect(item.title).toBe('a & b');
    expect(item.description).toBe('<p>x&amp;y</p>'.repeat(2000));
  });

  test('entities defined in a DOCTYPE do not multiply (billion laughs)', () => {
    const ten = (name: string) => Array.from({ length: 10 }, () => `&${name};`).join('');
    const xml = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "lol"><!ENTITY b "${ten('a')}"><!ENTITY c "${ten('b')}"><!ENTITY d "${ten('c')}">]>
      <rss><channel><title>T</title><item><title>&d;</title><link>https://a.example</link></item></channel></rss>`;
    const items = (() => {
      try {
        return parseFeed(xml);
      } catch {
        return [];
      }
    })();
    expect(items.every((i) => i.title.length < 1000)).toBe(true);
  });
});
