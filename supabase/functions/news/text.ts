// Feed text to plain text: tags stripped, HTML entities decoded, whitespace collapsed, cut with an ellipsis.
import { decodeHTML } from 'entities';

const ELLIPSIS = '...';

/** Elements whose content is never readable text. */
const HIDDEN = /<(script|style|noscript|iframe|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const COMMENT = /<!--[\s\S]*?-->/g;
const CDATA = /<!\[CDATA\[([\s\S]*?)\]\]>/g;
/** Tags that end a line or block: they become a space so words on either side stay apart. */
const BREAK = /<\/?(?:br|p|div|li|ul|ol|h[1-6]|tr|td|th|table|blockquote|figure|figcaption|section|article)\b[^>]*>/gi;
const TAG = /<\/?[a-zA-Z][^>]*>/g;

/** Plain text of an HTML fragment (or of plain text with entities): no tags, entities decoded, one-space gaps. */
export function plainText(html: string): string {
  const withoutMarkup = html
    .replace(CDATA, '$1')
    .replace(COMMENT, ' ')
    .replace(HIDDEN, ' ')
    .replace(BREAK, ' ')
    .replace(TAG, '');
  // Decoding comes last, so an escaped tag such as &lt;b&gt; stays as text and is never read as markup.
  return decodeHTML(withoutMarkup)
    .replace(/[\s\u00a0]+/g, ' ')
    .trim();
}

/** `text` cut to `max` characters (code points) plus an ellipsis; unchanged when it already fits. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, max).join('').trimEnd()}${ELLIPSIS}`;
}
