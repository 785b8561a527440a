interface Props {
  /** The page's heading, when nothing else on the page shows it yet: every state keeps its one h1. */
  heading?: string;
  text: string;
}

/** The spinner with the page's loading text, read out once by screen readers. */
export default function MemberLoading({ heading, text }: Props) {
  return (
    <>
      {heading && <h1 className="sr-only">{heading}</h1>}
      <div role="status" className="flex min-h-[40vh] items-center justify-center gap-3 px-4 py-16 text-muted">
        <span
          aria-hidden="true"
          className="size-6 animate-spin rounded-full border-2 border-navy-600 border-t-accent motion-reduce:animate-none"
        />
        <p>{text}</p>
      </div>
    </>
  );
}
