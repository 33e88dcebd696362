import { describe, expect, it } from 'vitest';
import { WALLET_COINS } from '@bytx/contract';
import {
  bech32Verify,
  keccak256,
  paperDepositAddress,
  segwitAddress,
  toChecksumAddress,
} from '../src/addresses';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('paper deposit addresses', () => {
  it('keccak-256 matches the known vectors', () => {
    expect(hex(keccak256(new Uint8Array()))).toBe(
      'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
    expect(hex(keccak256(new TextEncoder().encode('abc')))).toBe(
      '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45',
    );
    // Longer than one 136-byte block.
    expect(hex(keccak256(new Uint8Array(200).fill(0x61)))).toHaveLength(64);
  });

  it('EIP-55 checksums match the EIP test vectors', () => {
    for (const a of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(toChecksumAddress(a.toLowerCase())).toBe(a);
    }
  });

  it('bech32 segwit encoding matches BIP-173', () => {
    const program = Buffer.from('751e76e8199196d454941c45d1b3a323f1433bd6', 'hex');
    expect(segwitAddress('bc', program)).toBe('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    expect(bech32Verify('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(true);
    expect(bech32Verify('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).toBe(false);
  });

  it('gives every wallet coin a deterministic address in its chain format', () => {
    const formats: Record<string, RegExp> = {
      ETH: /^0x[0-9a-fA-F]{40}$/,
      BTC: /^bc1q[02-9ac-hj-np-z]{38}$/,
      LTC: /^ltc1q[02-9ac-hj-np-z]{38}$/,
      BCH: /^1[1-9A-HJ-NP-Za-km-z]{25,34}$/,
      TRX: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
      XRP: /^r[1-9A-HJ-NP-Za-km-z]{24,34}$/,
      SOL: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
      DOT: /^1[1-9A-HJ-NP-Za-km-z]{46,47}$/,
      ATOM: /^cosmos1[02-9ac-hj-np-z]{38}$/,
      ADA: /^addr1[02-9ac-hj-np-z]{53}$/,
      ALGO: /^[A-Z2-7]{58}$/,
      HBAR: /^0\.0\.\d+$/,
      SUI: /^0x[0-9a-f]{64}$/,
    };
    for (const coin of WALLET_COINS) {
      const a = paperDepositAddress('user-1', coin);
      expect(paperDepositAddress('user-1', coin)).toEqual(a);
      expect(paperDepositAddress('user-2', coin).address).not.toBe(a.address);
      expect(a.currency).toBe(coin);
      const re = formats[coin] ?? formats.ETH!;
      expect(a.address, coin).toMatch(re);
      if (re === formats.ETH) expect(toChecksumAddress(a.address)).toBe(a.address);
      if (/^(bc|ltc|cosmos|addr)1/.test(a.address)) expect(bech32Verify(a.address)).toBe(true);
    }
    expect(paperDepositAddress('user-1', 'XRP').tag).toMatch(/^\d+$/);
  });
});
