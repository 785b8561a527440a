import { defineConfig } from 'vitest/config';

// Run from the repository root (`npm test`, or `npx vitest run --project 'local-supabase (unit)'`), since the stack serves
// the project in the working directory: its supabase/config.toml, migrations and functions.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          root: import.meta.dirname,
          include: ['tests/unit/**/*.test.ts'],
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
          root: import.meta.dirname,
          include: ['tests/integration/**/*.test.ts'],
          globalSetup: ['testing/global-setup.ts'],
          // A hang fails the test; slowness does not: some tests start stacks or processes of their own, which takes
          // seconds each on a loaded machine.
          testTimeout: 90_000,
          hookTimeout: 60_000,
          // Each file starts a stack of its own; two cores run two at a time.
          maxWorkers: 2,
        },
      },
    ],
  },
});
