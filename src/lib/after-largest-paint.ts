// Runs `task` once the browser has painted the page's largest text or picture so far (its first
// largest-contentful-paint entry), so a request the task makes never delays that paint nor counts before it. A
// browser without the entry type (Safari), or a page that paints nothing (a background tab), runs it after the next
// animation frame or `timeout` ms, whichever comes first.
export function afterLargestPaint(task: () => void, timeout = 1000): void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    observer?.disconnect();
    task();
  };
  const supported = PerformanceObserver.supportedEntryTypes?.includes('largest-contentful-paint');
  const observer = supported ? new PerformanceObserver(() => setTimeout(run, 0)) : undefined;
  observer?.observe({ type: 'largest-contentful-paint', buffered: true });
  if (!supported) requestAnimationFrame(() => setTimeout(run, 0));
  setTimeout(run, timeout);
}
