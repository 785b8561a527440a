import { describe, expect, test } from 'vitest';
import { plainText, truncate } from '../../../supabase/functions/news/text.ts';

describe('plainText', () => {
  test.each([
    ['tags are stripped', '<p>Shares <b>rose</b> on <a href="x">Wall Street</a></p>', 'Shares rose on Wall Street'],
    ['HTML entities are decoded', 'Caf&eacute; &amp; bar&nbsp;&mdash; &#8217;quoted&#x2019;', 'Café & bar — ’quoted’'],
    ['script and style content is dropped', 'a<script>alert(1)</script> b<style>p{}</style>', 'a b'],
    ['comments are dropped', 'a<!-- hidden --> b', 'a b'],
    ['block tags keep words apart', '<p>one</p><p>two</p>line<br/>break', 'one two line break'],
    ['whitespace collapses', '  many\n\n\tspaces  ', 'many spaces'],
    ['an escaped tag stays text', '&lt;b&gt;bold&lt;/b&gt;', '<b>bold</b>'],
    ['a CDATA marker left in HTML is unwrapped', '<![CDATA[inside]]>', 'inside'],
    ['a lone < is text', 'a < b and c > d', 'a < b and c > d'],
  ])('%s', (_name, input, expected) => {
    expect(plainText(input)).toBe(expected);
  });
});

describe('truncate', () => {
  test.each([
    ['shorter text is unchanged', 'short', 10, 'short'],
    ['text of exactly the limit is unchanged', 'x'.repeat(200), 200, 'x'.repeat(200)],
    ['one character over is cut, with an ellipsis', 'x'.repeat(201), 200, `${'x'.repeat(200)}...`],
    ['a space before the cut is not kept', 'abcd efgh', 5, 'abcd...'],
    ['characters are code points, not UTF-16 units', '😀😀😀', 2, '😀😀...'],
  ])('%s', (_name, text, max, expected) => {
    expect(truncate(text, max)).toBe(expected);
  });

  test('combined and investing lengths: 200 and 300 characters before the ellipsis', () => {
    const long = 'word '.repeat(100).trim();
    expect(truncate(long, 200).replace(/\.\.\.$/, '').length).toBeLessThanOrEqual(200);
    expect(truncate(long, 300).replace(/\.\.\.$/, '').length).toBeLessThanOrEqual(300);
    expect(truncate(long, 300).endsWith('...')).toBe(true);
  });
});
