import { DCA_MESSAGES } from '@bytx/contract';
import { afterEach, describe, expect, it } from 'vitest';
import i18n, { loadAllCatalogs } from '../i18n/index';
import { botServerText } from './serverText';

describe('botServerText', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  it("reads the server's spec texts in the user's language, with their figures", async () => {
    await loadAllCatalogs();
    const min = 'Monto insuficiente. El mínimo para ETH/USDT es ≈ 5 USDT (0.0016 unidades a precio 3000)';
    await i18n.changeLanguage('en');
    expect(botServerText(i18n.t, DCA_MESSAGES.noExchange)).toBe(
      '⚠️ You must select an exchange before starting the bot.',
    );
    expect(botServerText(i18n.t, min)).toBe(
      'Insufficient amount. The minimum for ETH/USDT is ≈ 5 USDT (0.0016 units at price 3000)',
    );
    expect(botServerText(i18n.t, 'boom')).toBe('boom');
    await i18n.changeLanguage('es');
    expect(botServerText(i18n.t, min)).toBe(min);
    expect(botServerText(i18n.t, '⚠️ This pair is not available on Binance.')).toBe(
      '⚠️ Este par no está disponible en Binance.',
    );
  });
});
