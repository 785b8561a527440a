import type { DemoCopy } from '../content/schemas.ts';
import { type DemoTrade, formatPounds } from '../lib/demo-script.ts';

interface Props {
  trades: DemoTrade[];
  labels: DemoCopy['labels'];
}

/** The demo's trade log, newest first: winners green with + and Win, losers red with − and Loss. */
export default function DemoModalTrades({ trades, labels }: Props) {
  return (
    <section
      aria-label={labels.trades}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls, so it takes keyboard focus to be scrolled without a mouse
      tabIndex={0}
      className="mt-4 max-h-[45vh] overflow-auto rounded-xl border border-navy-700 lg:max-h-[50vh]"
    >
      <table className="w-full text-left text-sm whitespace-nowrap tabular-nums sm:text-base">
        <caption className="sr-only">{labels.trades}</caption>
        <thead className="sticky top-0 bg-navy-800 text-xs tracking-wide text-muted uppercase">
          <tr>
            <th scope="col" className="px-1.5 py-2 sm:px-3">
              {labels.pair}
            </th>
            <th scope="col" className="px-1.5 py-2 sm:px-3">
              {labels.type}
            </th>
            <th scope="col" className="px-1.5 py-2 sm:px-3">
              {labels.entry}
            </th>
            <th scope="col" className="px-1.5 py-2 sm:px-3 text-right">
              {labels.profit}
            </th>
            <th scope="col" className="px-1.5 py-2 sm:px-3">
              {labels.result}
            </th>
          </tr>
        </thead>
        <tbody>
          {trades.toReversed().map((trade) => {
            const win = trade.tradeType === 'win';
            return (
              <tr
                key={trade.id}
                data-status={trade.status}
                className="border-t border-navy-800 motion-safe:animate-[toast-in_200ms_ease-out]"
              >
                <td className="px-1.5 py-2 sm:px-3 font-semibold">{trade.pair}</td>
                <td className="px-1.5 py-2 sm:px-3">
                  <span className={trade.type === 'BUY' ? 'text-sky-300' : 'text-gold'}>{trade.type}</span>
                </td>
                <td className="px-1.5 py-2 sm:px-3">{trade.entry}</td>
                <td className={`px-1.5 py-2 sm:px-3 text-right font-semibold ${win ? 'text-accent' : 'text-danger'}`}>
                  {formatPounds(trade.profit)}
                </td>
                <td className="px-1.5 py-2 sm:px-3">
                  <span
                    className={`rounded-full px-2 py-0.5 text-xs font-semibold ${win ? 'bg-accent/15 text-accent' : 'bg-danger/15 text-danger'}`}
                  >
                    {win ? labels.win : labels.loss}
                  </span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
