// The site's own client directive (src/lib/visible-yield.ts), typed for .astro templates.
declare namespace Astro {
  interface ClientDirectives {
    'client:visible-yield'?: boolean;
  }
}
