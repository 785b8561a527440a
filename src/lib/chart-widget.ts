// TradingView's advanced-chart widget as /trading-ideas embeds it: where it loads from and its settings.

/** Where the embed script comes from and where its chart frames load; the page's CSP allows exactly these. */
export const TRADINGVIEW_SCRIPT_ORIGIN = 'https://s3.tradingview.com';
export const TRADINGVIEW_FRAME_ORIGIN = 'https://www.tradingview-widget.com';
export const TRADINGVIEW_SCRIPT = `${TRADINGVIEW_SCRIPT_ORIGIN}/external-embedding/embed-widget-advanced-chart.js`;

/** Daily candles, 300 px high. */
export const CHART_HEIGHT = 300;

/** A currency pair as TradingView names it on its FX feed: EURUSD -> FX:EURUSD. */
export function tradingViewSymbol(pair: string): string {
  return `FX:${pair.replace(/[^A-Z]/gi, '').toUpperCase()}`;
}

/** The settings the embed script reads from its own text. */
export function chartSettings(pair: string): Record<string, unknown> {
  return {
    symbol: tradingViewSymbol(pair),
    interval: 'D',
    width: '100%',
    height: CHART_HEIGHT,
    theme: 'dark',
    style: '1',
    locale: 'en',
    allow_symbol_change: false,
    hide_side_toolbar: true,
    save_image: false,
  };
}
