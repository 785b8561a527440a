interface Props {
  /** Inner SVG markup from src/lib/icons.ts, passed in as a prop by the page. */
  paths: string;
  size?: number;
  className?: string;
}

/** A decorative 24x24 stroked icon (the same drawing as ui/Icon.astro). */
export default function SvgIcon({ paths, size = 20, className }: Props) {
  return (
    <svg
      aria-hidden="true"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      className={className}
      // biome-ignore lint/security/noDangerouslySetInnerHtml: fixed drawings from src/lib/icons.ts, not user input
      dangerouslySetInnerHTML={{ __html: paths }}
    />
  );
}
