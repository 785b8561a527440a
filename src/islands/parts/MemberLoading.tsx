interface Props {
  text: string;
}

/** The spinner with the page's loading text, read out once by screen readers. */
export default function MemberLoading({ text }: Props) {
  return (
    <div role="status" className="flex min-h-[40vh] items-center justify-center gap-3 px-4 py-16 text-muted">
      <span
        aria-hidden="true"
        className="size-6 animate-spin rounded-full border-2 border-navy-600 border-t-accent motion-reduce:animate-none"
      />
      <p>{text}</p>
    </div>
  );
}
