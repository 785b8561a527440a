import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.{ts,tsx}'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          globalSetup: ['tests/integration/global-setup.ts'],
          testTimeout: 30_000,
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
          globalSetup: ['tests/integration/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
