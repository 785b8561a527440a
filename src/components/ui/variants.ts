// The buttons' looks in one place: the Astro Button (static pages) and the React Button (islands) both take
// their classes from `buttonVariants`, so a primary button is the same wherever it renders. Full class
// names, so Tailwind finds them in this file.

const base =
  'inline-flex items-center justify-center gap-2 rounded-lg font-semibold no-underline transition-colors disabled:cursor-not-allowed disabled:opacity-60';

const variants = {
  primary: 'bg-accent text-navy-950 hover:bg-accent-strong',
  secondary: 'border border-accent/70 text-white hover:bg-accent/10',
  /** A quieter bordered button beside a primary one: Cancel, Copy, Remove. */
  outline: 'border border-navy-600 text-white hover:bg-white/10',
  ghost: 'text-white hover:bg-white/10',
  /** The action that deletes something, once confirmed. */
  danger: 'bg-danger text-navy-950 hover:bg-danger/90',
  /** The button that opens a deletion's confirmation. */
  'danger-outline': 'border border-danger text-danger hover:bg-danger/10',
};

// Every size keeps a 48px-tall tap target on touch screens.
const sizes = {
  sm: 'min-h-12 px-4 text-sm',
  md: 'min-h-12 px-5 text-base',
  lg: 'min-h-14 px-7 text-lg',
};

export type ButtonVariant = keyof typeof variants;
export type ButtonSize = keyof typeof sizes;

/** The class list of a button (or a link shown as one): its variant, its size, then the caller's classes. */
export function buttonVariants(variant: ButtonVariant = 'primary', size: ButtonSize = 'md', extra?: string): string {
  return [base, variants[variant], sizes[size], extra].filter(Boolean).join(' ');
}
