import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';

/** BINANCE_EMULATOR_URL (tests only, issue 38 #7): a loopback URL, never in production. */
describe('BINANCE_EMULATOR_URL', () => {
  it('accepts http://127.0.0.1:<port> outside production', () => {
    expect(loadConfig({ BINANCE_EMULATOR_URL: 'http://127.0.0.1:4567' }).BINANCE_EMULATOR_URL).toBe(
      'http://127.0.0.1:4567',
    );
    expect(loadConfig({}).BINANCE_EMULATOR_URL).toBeUndefined();
  });

  it('refuses any other host or scheme', () => {
    for (const url of ['https://api.binance.com', 'http://10.0.0.5:80', 'http://127.0.0.1', 'file:///x']) {
      expect(() => loadConfig({ BINANCE_EMULATOR_URL: url }), url).toThrow(/BINANCE_EMULATOR_URL/);
    }
  });

  it('is refused in production', () => {
    let error: unknown;
    try {
      loadConfig({ NODE_ENV: 'production', BINANCE_EMULATOR_URL: 'http://127.0.0.1:4567' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.join('\n')).toMatch(/BINANCE_EMULATOR_URL.*production/);
  });
});

/** BYBIT_EMULATOR_URL (tests only, issue 38 #7): the same rules as Binance's. */
describe('BYBIT_EMULATOR_URL', () => {
  it('accepts http://127.0.0.1:<port> outside production, refuses other URLs and production', () => {
    expect(loadConfig({ BYBIT_EMULATOR_URL: 'http://127.0.0.1:4568' }).BYBIT_EMULATOR_URL).toBe(
      'http://127.0.0.1:4568',
    );
    expect(loadConfig({}).BYBIT_EMULATOR_URL).toBeUndefined();
    for (const url of ['https://api.bybit.com', 'http://10.0.0.5:80', 'http://127.0.0.1', 'file:///x']) {
      expect(() => loadConfig({ BYBIT_EMULATOR_URL: url }), url).toThrow(/BYBIT_EMULATOR_URL/);
    }
    expect(() => loadConfig({ NODE_ENV: 'production', BYBIT_EMULATOR_URL: 'http://127.0.0.1:4568' })).toThrow(
      /BYBIT_EMULATOR_URL.*production/,
    );
  });
});
