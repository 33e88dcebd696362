import { exchangeDisplayName, type MarketType } from './catalog';

/*
 * Which market types an exchange supports, and the text said when it does not (./exchanges.ts
 * re-exports these). Without zod, on purpose: the web's start forms import them, and a module with
 * schemas brings zod (~25 KB gzip) into the bot screens' first chunks (issue 39, `/bot-dca`).
 */

/** The capability columns of `ExchangeCapability` (./exchanges.ts) a market type is read from. */
export interface MarketSupportColumns {
  spot: boolean;
  perpetual: boolean;
  inverse: boolean;
  margin: boolean;
}

/** The capability column of a market type. */
export function supportsMarket(c: MarketSupportColumns, type: MarketType): boolean {
  switch (type) {
    case 'Spot':
      return c.spot;
    case 'Perpetual':
      return c.perpetual;
    case 'Inverse':
      return c.inverse;
    case 'Margin':
      return c.margin;
  }
}

/**
 * Said before a start (the forms, under the market type) and by the server when it refuses that start: the
 * same text in both places (the server answers the English one, as its other start refusals).
 */
export const UNSUPPORTED_MARKET_MESSAGE = {
  en: '{name} does not support {type} trading with live keys. Choose another market type or exchange, or a paper account.',
  es: '{name} no admite operar {type} con claves reales. Elige otro tipo de mercado u otro exchange, o una cuenta paper.',
} as const;

export function unsupportedMarketMessage(lang: 'en' | 'es', exchange: string, type: MarketType): string {
  const name = exchangeDisplayName(exchange);
  return UNSUPPORTED_MARKET_MESSAGE[lang].replace('{name}', name).replace('{type}', type);
}
