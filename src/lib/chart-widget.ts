// TradingView's advanced-chart widget as /trading-ideas embeds it: where it loads from and its settings.

/**
 * The embed script, and the origin its chart frames load from. The page's CSP allows exactly this script URL (not
 * the whole s3.tradingview.com, which serves much else and would then run with the member's tokens in reach) and
 * frames from that origin: the script builds an <iframe> of the frame origin and loads nothing else into the page.
 */
export const TRADINGVIEW_SCRIPT = 'https://s3.tradingview.com/external-embedding/embed-widget-advanced-chart.js';
export const TRADINGVIEW_FRAME_ORIGIN = 'https://www.tradingview-widget.com';

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

/**
 * Where the visitor's "remember on this device" choice to load the charts is kept (localStorage, this origin). Only
 * the value `granted` counts; /privacy-settings sets or removes it.
 */
export const CHART_CONSENT_KEY = 'signalone:consent:tradingview';
