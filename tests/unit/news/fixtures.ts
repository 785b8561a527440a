// The feed fixtures as the unit tests read them: {{images}} points at a fixed origin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const IMAGES = 'https://img.example.com/images';

export function fixture(file: string): string {
  return readFileSync(join('tests/fixtures/feeds', file), 'utf8').replaceAll('{{images}}', IMAGES);
}

/** A fetch that answers each URL from the map: a fixture file name, a status number, or an Error to throw. */
export function fixtureFetch(routes: Record<string, string | number | Error>, calls: string[] = []) {
  return async (url: string): Promise<Response> => {
    calls.push(url);
    const route = routes[url];
    if (route instanceof Error) throw route;
    if (typeof route === 'number') return new Response('upstream error', { status: route });
    if (route === undefined) return new Response('not found', { status: 404 });
    return new Response(fixture(route), { headers: { 'Content-Type': 'application/rss+xml' } });
  };
}
