// `npm run lighthouse -- / /faq /features`: Lighthouse (mobile preset) on the built site, three runs per page,
// median score per category. Builds dist/ if stale and serves it as `npm start` does (no stack needed for
// static pages). RUNS sets the number of runs.
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromiumArgs, chromiumPath } from '../playwright.config.ts';
import { buildIfStale } from './build.ts';
import { freePort } from './free-port.ts';
import { startSiteServer } from './serve.ts';

const paths = process.argv.slice(2).length ? process.argv.slice(2) : ['/', '/faq', '/features'];
const runs = Number(process.env.RUNS ?? 3);
const categories = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

buildIfStale('dist');
const port = await freePort();
const site = await startSiteServer({ dir: 'dist', port });
const chrome = await chromeLauncher.launch({
  chromePath: chromiumPath,
  chromeFlags: ['--headless=new', ...chromiumArgs],
});

try {
  console.log(`Lighthouse mobile, median of ${runs} runs\n${'page'.padEnd(20)} perf  a11y  best  seo`);
  for (const path of paths) {
    const scores = Object.fromEntries(categories.map((c) => [c, [] as number[]]));
    for (let i = 0; i < runs; i++) {
      const result = await lighthouse(`http://127.0.0.1:${port}${path}`, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: [...categories],
      });
      for (const c of categories) {
        scores[c].push(Math.round((result?.lhr.categories[c]?.score ?? 0) * 100));
      }
    }
    const row = categories.map((c) => String(median(scores[c])).padStart(4)).join('  ');
    const all = categories.map((c) => `${c} ${scores[c].join('/')}`).join(', ');
    console.log(`${path.padEnd(20)} ${row}    (${all})`);
  }
} finally {
  await chrome.kill();
  await new Promise<void>((done) => site.close(() => done()));
}
