// The site's own client directives (integrations/client-directives/), typed for .astro templates.
declare namespace Astro {
  interface ClientDirectives {
    'client:load-yield'?: boolean;
    'client:visible-yield'?: boolean;
  }
}
