/** The generated files match the sources, and the TypeScript constants match the contracts' rules. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mnemonicToAccount } from 'viem/accounts';
import { bytesToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { generate } from '../scripts/compile';
import {
  APY_TIERS,
  PLAN_IDS,
  PLAN_USD_CENTS,
  apyBpsForReserve,
  apyPercentForPool,
  planPriceInTokens,
  tokensForStable,
} from '../src/index';
import { ANVIL_ACCOUNTS } from '../src/node';

const src = (file: string) => readFileSync(join(import.meta.dirname, '..', 'src', file), 'utf8');

describe('generated files', () => {
  it('compiling contracts/*.sol gives src/abi.ts and src/bytecode.ts (run scripts/compile.ts when not)', async () => {
    const { abi, bytecode } = await generate();
    expect(abi).toBe(src('abi.ts'));
    expect(bytecode).toBe(src('bytecode.ts'));
  }, 120_000);

  it('abi.ts stays browser-safe: no imports at all', () => {
    expect(src('abi.ts')).not.toMatch(/^import /m);
    expect(src('index.ts')).not.toMatch(/from 'node:/);
  });
});

describe('constants', () => {
  it('ANVIL_ACCOUNTS are the default mnemonic’s first ten accounts', () => {
    const mnemonic = 'test test test test test test test test test test test junk';
    ANVIL_ACCOUNTS.forEach(({ address, privateKey }, addressIndex) => {
      const account = mnemonicToAccount(mnemonic, { addressIndex });
      expect(account.address).toBe(address);
      expect(bytesToHex(account.getHdKey().privateKey!)).toBe(privateKey);
    });
    expect(ANVIL_ACCOUNTS).toHaveLength(10);
  });

  it('APY tiers: highest first, percent = bps / 100, boundaries inclusive', () => {
    expect(APY_TIERS.map((t) => t.minPoolTokens)).toEqual([
      50_000_000, 40_000_000, 30_000_000, 20_000_000, 10_000_000, 5_000_000, 2_000_000, 1_000_000, 0,
    ]);
    for (const tier of APY_TIERS) {
      expect(tier.apyPercent * 100).toBe(tier.apyBps);
      expect(apyPercentForPool(tier.minPoolTokens)).toBe(tier.apyPercent);
      expect(apyBpsForReserve(BigInt(tier.minPoolTokens) * 10n ** 18n)).toBe(tier.apyBps);
    }
    expect(apyPercentForPool(49_999_999)).toBe(80);
    expect(apyPercentForPool(999_999)).toBe(0);
    expect(apyBpsForReserve(50_000_000n * 10n ** 18n - 1n)).toBe(8_000);
    expect(apyBpsForReserve(0n)).toBe(0);
  });

  it('plan prices and token amounts follow the contracts’ formulas', () => {
    expect(PLAN_IDS).toEqual({ basic: 1, advanced: 2, professional: 3 });
    expect(PLAN_USD_CENTS).toEqual({ basic: 500, advanced: 1500, professional: 3000 });
    expect(planPriceInTokens(500)).toBe(2_500n * 10n ** 18n);
    expect(planPriceInTokens(3000, 3000n)).toBe(10_000n * 10n ** 18n);
    expect(tokensForStable(2000n)).toBe(10n ** 18n);
    expect(tokensForStable(1n, 3n)).toBe(333_333_333_333_333_333n);
  });
});
