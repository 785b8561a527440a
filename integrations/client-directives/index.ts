// client:load-yield and client:visible-yield: Astro's client:load and client:visible, hydrating an island in a
// task of its own (next-task.ts). Typed for .astro templates in src/env.d.ts.
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';

/** The Astro integration registering both directives. */
export function clientDirectives(): AstroIntegration {
  return {
    name: 'signals:client-directives',
    hooks: {
      'astro:config:setup': ({ addClientDirective }) => {
        for (const name of ['load-yield', 'visible-yield']) {
          // A path, not a URL: Astro bundles the entrypoint with esbuild, which imports paths.
          addClientDirective({ name, entrypoint: fileURLToPath(new URL(`./${name}.ts`, import.meta.url)) });
        }
      },
    },
  };
}
