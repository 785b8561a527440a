import { describe, expect, it } from 'vitest';
import { faqPageJsonLd, htmlToText } from '../../src/lib/faq-json-ld.ts';

describe.each([
  ['<p>Plain answer.</p>', 'Plain answer.'],
  ['<p>Use our <a href="/contact-us">contact form</a>: we reply fast.</p>', 'Use our contact form: we reply fast.'],
  [
    '<p><strong>Foundation One</strong> is conservative.</p>\n<p>Second paragraph.</p>',
    'Foundation One is conservative. Second paragraph.',
  ],
  ['<ul>\n<li>One</li>\n<li>Two</li>\n</ul>', 'One Two'],
  [
    '<p>Risk &amp; reward &lt;1:2&gt; &#x26; &#163;100 &quot;ok&quot; &apos;x&apos;</p>',
    'Risk & reward <1:2> & £100 "ok" \'x\'',
  ],
  ['<p>Unknown &bogus; kept, &#x110000; kept</p>', 'Unknown &bogus; kept, &#x110000; kept'],
])('htmlToText(%j)', (html, text) => {
  it(`gives ${JSON.stringify(text)}`, () => {
    expect(htmlToText(html)).toBe(text);
  });
});

describe('faqPageJsonLd', () => {
  it('builds one Question with an accepted Answer per entry, in order', () => {
    const data = faqPageJsonLd([
      { question: 'Is there a free trial?', answerHtml: '<p>Yes, <em>7 days</em>.</p>' },
      { question: 'How fast?', answerHtml: '<p>Under a second.</p>' },
    ]);
    expect(data).toEqual({
      '@context': 'https://schema.org',
      '@type': 'FAQPage',
      mainEntity: [
        {
          '@type': 'Question',
          name: 'Is there a free trial?',
          acceptedAnswer: { '@type': 'Answer', text: 'Yes, 7 days.' },
        },
        { '@type': 'Question', name: 'How fast?', acceptedAnswer: { '@type': 'Answer', text: 'Under a second.' } },
      ],
    });
  });
});
