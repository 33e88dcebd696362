import { createHash } from 'node:crypto';
import type { DepositAddress } from './types';

/**
 * Deterministic deposit addresses for paper accounts: valid in each chain's format (checksums
 * included) but derived from a hash of (seed, coin), so nobody holds a key for them. Never send
 * real funds to a paper address. Formats: EIP-55 0x addresses for EVM coins, bech32 P2WPKH for BTC
 * and LTC, base58check for BCH (legacy P2PKH) and TRX, XRP classic address + destination tag,
 * base58 public keys for SOL, SS58 for DOT, bech32 for ATOM and ADA (Shelley enterprise), Algorand
 * base32 with its SHA-512/256 checksum, Hedera account ids, 32-byte hex for SUI, FEVM 0x for FIL.
 */

// --- keccak-256 (the pre-NIST padding Ethereum uses; node's sha3-256 differs) -----------------
const RC = [
  0x0000000000000001n,
  0x0000000000008082n,
  0x800000000000808an,
  0x8000000080008000n,
  0x000000000000808bn,
  0x0000000080000001n,
  0x8000000080008081n,
  0x8000000000008009n,
  0x000000000000008an,
  0x0000000000000088n,
  0x0000000080008009n,
  0x000000008000000an,
  0x000000008000808bn,
  0x800000000000008bn,
  0x8000000000008089n,
  0x8000000000008003n,
  0x8000000000008002n,
  0x8000000000000080n,
  0x000000000000800an,
  0x800000008000000an,
  0x8000000080008081n,
  0x8000000000008080n,
  0x0000000080000001n,
  0x8000000080008008n,
];
const ROT = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
const MASK = (1n << 64n) - 1n;
const rotl = (x: bigint, n: number) => (n === 0 ? x : ((x << BigInt(n)) | (x >> BigInt(64 - n))) & MASK);

function keccakF(s: bigint[]): void {
  for (let round = 0; round < 24; round++) {
    const c: bigint[] = [];
    for (let x = 0; x < 5; x++) c[x] = s[x]! ^ s[x + 5]! ^ s[x + 10]! ^ s[x + 15]! ^ s[x + 20]!;
    for (let x = 0; x < 5; x++) {
      const d = c[(x + 4) % 5]! ^ rotl(c[(x + 1) % 5]!, 1);
      for (let y = 0; y < 25; y += 5) s[x + y] = s[x + y]! ^ d;
    }
    const b: bigint[] = new Array<bigint>(25);
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(s[x + 5 * y]!, ROT[x + 5 * y]!);
    }
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 25; y += 5)
        s[x + y] = b[x + y]! ^ (~b[((x + 1) % 5) + y]! & MASK & b[((x + 2) % 5) + y]!);
    }
    s[0] = s[0]! ^ RC[round]!;
  }
}

export function keccak256(data: Uint8Array): Uint8Array {
  const rate = 136;
  const padded = new Uint8Array(Math.ceil((data.length + 1) / rate) * rate);
  padded.set(data);
  padded[data.length] = 0x01;
  padded[padded.length - 1]! |= 0x80;
  const s = new Array<bigint>(25).fill(0n);
  for (let off = 0; off < padded.length; off += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let lane = 0n;
      for (let j = 7; j >= 0; j--) lane = (lane << 8n) | BigInt(padded[off + i * 8 + j]!);
      s[i] = s[i]! ^ lane;
    }
    keccakF(s);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 4; i++) {
    let lane = s[i]!;
    for (let j = 0; j < 8; j++) {
      out[i * 8 + j] = Number(lane & 0xffn);
      lane >>= 8n;
    }
  }
  return out;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** EIP-55 mixed-case checksum of a 20-byte address. */
export function toChecksumAddress(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/, '');
  const h = hex(keccak256(new TextEncoder().encode(lower)));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    out += parseInt(h[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i];
  }
  return out;
}

// --- bech32 (BIP-173) ---------------------------------------------------------------------------
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
function polymod(values: number[]): number {
  const G = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= G[i]!;
  }
  return chk >>> 0;
}
const hrpExpand = (hrp: string) => [
  ...[...hrp].map((c) => c.charCodeAt(0) >> 5),
  0,
  ...[...hrp].map((c) => c.charCodeAt(0) & 31),
];

export function convertBits(data: Uint8Array | number[], from: number, to: number, pad: boolean): number[] {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const maxv = (1 << to) - 1;
  for (const v of data) {
    acc = (acc << from) | v;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & maxv);
    }
  }
  if (pad && bits > 0) out.push((acc << (to - bits)) & maxv);
  return out;
}

export function bech32Encode(hrp: string, words: number[]): string {
  const mod = polymod([...hrpExpand(hrp), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = [0, 1, 2, 3, 4, 5].map((i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => BECH32[w]).join('')}`;
}

export function bech32Verify(address: string): boolean {
  const s = address.toLowerCase();
  const pos = s.lastIndexOf('1');
  if (pos < 1) return false;
  const words = [...s.slice(pos + 1)].map((c) => BECH32.indexOf(c));
  if (words.some((w) => w < 0)) return false;
  return polymod([...hrpExpand(s.slice(0, pos)), ...words]) === 1;
}

/** Segwit v0 address (P2WPKH with a 20-byte program). */
export function segwitAddress(hrp: string, program: Uint8Array): string {
  return bech32Encode(hrp, [0, ...convertBits(program, 8, 5, true)]);
}

// --- base58 --------------------------------------------------------------------------------------
const B58_BTC = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const B58_XRP = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz';

export function base58(data: Uint8Array, alphabet = B58_BTC): string {
  let n = BigInt(`0x${hex(data) || '0'}`);
  let out = '';
  while (n > 0n) {
    out = alphabet[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const b of data) {
    if (b !== 0) break;
    out = alphabet[0]! + out;
  }
  return out;
}

const sha256 = (b: Uint8Array) => new Uint8Array(createHash('sha256').update(b).digest());

export function base58check(payload: Uint8Array, alphabet = B58_BTC): string {
  const sum = sha256(sha256(payload)).slice(0, 4);
  return base58(new Uint8Array([...payload, ...sum]), alphabet);
}

// --- the addresses ---------------------------------------------------------------------------------
const EVM: Record<string, string> = {
  ETH: 'ERC20',
  BYTX: 'ERC20',
  USDT: 'ERC20',
  USDC: 'ERC20',
  LINK: 'ERC20',
  UNI: 'ERC20',
  SAND: 'ERC20',
  WLD: 'ERC20',
  BNB: 'BEP20',
  ARB: 'ARBITRUM',
  OP: 'OPTIMISM',
  AVAX: 'AVAXC',
  THETA: 'THETA',
  FIL: 'FEVM',
};

function seedBytes(seed: string, coin: string, n: number): Uint8Array {
  const out = createHash('sha256').update(`bytx-paper-address:${seed}:${coin}`).digest();
  const more = createHash('sha256').update(out).digest();
  return new Uint8Array(Buffer.concat([out, more]).subarray(0, n));
}

/** Addresses already derived, by seed and coin (bounded: emptied when full). */
const derived = new Map<string, DepositAddress>();
const DERIVED_MAX = 10_000;

/**
 * The paper deposit address of one coin for one seed (user), deterministic. Derived once per (seed,
 * coin) and then kept: the EVM checksum's keccak in BigInt arithmetic took ~0.4 ms a coin (load 11), and
 * GET /api/address asks for every wallet coin a paper account has no stored address of, on every call.
 */
export function paperDepositAddress(seed: string, coin: string): DepositAddress {
  const key = `${seed}\u0000${coin.toUpperCase()}`;
  let a = derived.get(key);
  if (!a) {
    a = deriveDepositAddress(seed, coin);
    if (derived.size >= DERIVED_MAX) derived.clear();
    derived.set(key, a);
  }
  // A copy: callers own what they get.
  return { ...a };
}

function deriveDepositAddress(seed: string, coin: string): DepositAddress {
  const c = coin.toUpperCase();
  const evm = EVM[c];
  const r20 = seedBytes(seed, c, 20);
  const r32 = seedBytes(seed, c, 32);
  const base = { currency: c, tag: null as string | null };
  if (evm) return { ...base, network: evm, address: toChecksumAddress(hex(r20)) };
  switch (c) {
    case 'BTC':
      return { ...base, network: 'BTC', address: segwitAddress('bc', r20) };
    case 'LTC':
      return { ...base, network: 'LTC', address: segwitAddress('ltc', r20) };
    case 'BCH':
      return { ...base, network: 'BCH', address: base58check(new Uint8Array([0x00, ...r20])) };
    case 'TRX':
      return { ...base, network: 'TRC20', address: base58check(new Uint8Array([0x41, ...r20])) };
    case 'XRP': {
      const tag = String(100_000 + (Buffer.from(r32.subarray(0, 4)).readUInt32BE() % 900_000_000));
      return { ...base, network: 'XRP', address: base58check(new Uint8Array([0x00, ...r20]), B58_XRP), tag };
    }
    case 'SOL':
      return { ...base, network: 'SOL', address: base58(r32) };
    case 'DOT': {
      const body = new Uint8Array([0x00, ...r32]);
      const sum = createHash('blake2b512')
        .update(Buffer.concat([Buffer.from('SS58PRE'), body]))
        .digest()
        .subarray(0, 2);
      return { ...base, network: 'DOT', address: base58(new Uint8Array([...body, ...sum])) };
    }
    case 'ATOM':
      return { ...base, network: 'ATOM', address: bech32Encode('cosmos', convertBits(r20, 8, 5, true)) };
    case 'ADA': {
      // Shelley enterprise address (header 0x61: type 6, mainnet) with a 28-byte key hash.
      const payload = new Uint8Array([0x61, ...seedBytes(seed, c, 28)]);
      return { ...base, network: 'ADA', address: bech32Encode('addr', convertBits(payload, 8, 5, true)) };
    }
    case 'ALGO': {
      const sum = createHash('sha512-256').update(r32).digest().subarray(28, 32);
      const all = new Uint8Array([...r32, ...sum]);
      const b32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
      const address = convertBits(all, 8, 5, true)
        .map((v) => b32[v])
        .join('');
      return { ...base, network: 'ALGO', address };
    }
    case 'HBAR':
      return {
        ...base,
        network: 'HBAR',
        address: `0.0.${1_000_000 + (Buffer.from(r32.subarray(0, 4)).readUInt32BE() % 8_000_000)}`,
      };
    case 'SUI':
      return { ...base, network: 'SUI', address: `0x${hex(r32)}` };
    default:
      return { ...base, network: 'ERC20', address: toChecksumAddress(hex(r20)) };
  }
}
