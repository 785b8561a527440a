import { defineConfig } from 'vitest/config';

// The stack's own projects ('local-supabase (unit)', 'local-supabase (integration)') come from its package.
const stackSetup = 'packages/local-supabase/testing/global-setup.ts';

// The islands import React's names and run on Preact's compatibility layer, as the site's build has them
// (@astrojs/preact with compat in astro.config.mjs); tests render them the same way.
// (`react/jsx-runtime`, `react-dom/client` and the rest follow the two prefixes.)
const preactCompat = { react: 'preact/compat', 'react-dom': 'preact/compat' };

export default defineConfig({
  test: {
    // Integration files each start a stack; two cores run two at a time across all projects.
    maxWorkers: 2,
    projects: [
      'packages/local-supabase/vitest.config.ts',
      {
        resolve: { alias: preactCompat },
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.{ts,tsx}'],
          // A hang fails the test; slowness does not: on a loaded machine some property and file tests take seconds.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          // Files share their worker's modules (each still starts its own stack): without it every file paid
          // for a new process and PGlite's WebAssembly compile again, about 3 s each.
          isolate: false,
          include: ['tests/integration/**/*.test.ts'],
          globalSetup: [stackSetup],
          // A hang fails the test; slowness does not: some tests start stacks or processes of their own, which takes
          // seconds each on a loaded machine.
          testTimeout: 90_000,
          hookTimeout: 60_000,
          // Each file starts a stack of its own; two cores run two at a time.
          maxWorkers: 2,
        },
      },
      {
        test: {
          // The functions on Deno beside the Node host (`npm test -- deno`); the first run downloads their
          // npm packages into node_modules/.cache/deno.
          name: 'deno',
          include: ['tests/deno/**/*.test.ts'],
          globalSetup: [stackSetup],
          testTimeout: 30_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
