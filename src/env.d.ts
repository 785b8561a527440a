// The site's own client directives (src/islands/hydration/), typed for .astro templates.
declare namespace Astro {
  interface ClientDirectives {
    'client:load-yield'?: boolean;
    'client:visible-yield'?: boolean;
  }
}
