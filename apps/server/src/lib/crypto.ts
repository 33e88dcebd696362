import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** An opaque random token: 32 bytes (256 bits), base64url. */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/** SHA-256 hex of a high-entropy secret (tokens); never use for passwords. */
// One-shot `hash` (Node ≥ 20.12): every authenticated request hashes its token, and the Hash object of
// `createHash` cost three times as much (issue 18's profile).
export const sha256 = (value: string) => hash('sha256', value, 'hex');

export const safeEqual = (a: string, b: string) => {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
};

/**
 * AES-256-GCM for secrets at rest (exchange API keys and secrets, TOTP seeds, webhook secrets).
 *
 * Format `v2:<keyId>:<iv b64>:<tag b64>:<ciphertext b64>`: a 12-byte random IV per value, the id of the
 * master key that sealed it (several keys can be loaded while a rotation runs: the first encrypts, the
 * others only decrypt), and the owner and purpose of the value (`context`, e.g.
 * `exchange-secret:<user id>/binance`) as GCM associated data, so a ciphertext copied into another row
 * or column does not open. `v1:<iv>:<tag>:<ciphertext>` (no key id, no associated data) is what the
 * platform wrote before; it still opens, and is rewritten as v2 on start (master-key.ts).
 */
export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  /** The id of the key new values are sealed with (the first key given). */
  readonly currentKeyId: string;

  constructor(keys: Buffer | readonly Buffer[]) {
    const list = Buffer.isBuffer(keys) ? [keys] : keys;
    if (list.length === 0) throw new Error('SecretBox needs a key');
    for (const key of list) {
      if (key.length !== 32) throw new Error('SecretBox needs 32-byte keys');
      const id = keyIdOf(key);
      if (!this.keys.has(id)) this.keys.set(id, key);
    }
    this.currentKeyId = keyIdOf(list[0] as Buffer);
  }

  private get currentKey(): Buffer {
    return this.keys.get(this.currentKeyId) as Buffer;
  }

  /** The ids of every loaded key, the current one first. */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  seal(plain: string, context: string): string {
    if (!context) throw new Error('SecretBox.seal needs a context (owner and purpose)');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.currentKey, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      'v2',
      this.currentKeyId,
      iv.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      data.toString('base64'),
    ].join(':');
  }

  /** Throws on a wrong context, an unknown key, a changed byte or an unknown format. */
  open(sealed: string, context: string): string {
    const parts = sealed.split(':');
    if (parts[0] === 'v2' && parts.length === 5) {
      const [, keyId, iv, tag, data] = parts as [string, string, string, string, string];
      const key = this.keys.get(keyId);
      if (!key) throw new Error(`Sealed with master key ${keyId}, which is not loaded`);
      return decrypt(key, iv, tag, data, Buffer.from(context, 'utf8'));
    }
    if (parts[0] === 'v1' && parts.length === 4) {
      const [, iv, tag, data] = parts as [string, string, string, string];
      // v1 names no key: the install had one; try each (GCM's tag tells the right one).
      for (const key of this.keys.values()) {
        try {
          return decrypt(key, iv, tag, data, null);
        } catch {
          // next key
        }
      }
      throw new Error('No loaded master key opens this v1 value');
    }
    throw new Error('Unknown sealed-secret format');
  }

  /** True when the value is v2 under the current key (nothing to rewrite). */
  isCurrent(sealed: string): boolean {
    return sealed.startsWith(`v2:${this.currentKeyId}:`);
  }

  /** A sub-key for one purpose (HMAC-SHA256 of the label under the current key). */
  deriveKey(label: string): Buffer {
    return createHmac('sha256', this.currentKey).update(label).digest();
  }
}

function decrypt(key: Buffer, iv: string, tag: string, data: string, aad: Buffer | null): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
}

/**
 * A key's id in ciphertexts: 8 hex characters of SHA-256 over a label and the key. Derived, not stored, so
 * the same key has the same id from MASTER_KEY or from the key file; it reveals nothing of the key.
 */
export function keyIdOf(key: Buffer): string {
  return hash('sha256', Buffer.concat([Buffer.from('bytx/master-key-id/'), key]), 'hex').slice(0, 8);
}

/**
 * The associated data of every sealed value: its owner and purpose. Changing one of these makes the
 * values sealed under it unreadable; add a new name instead.
 */
export const sealContext = {
  exchangeApiKey: (userId: string, exchange: string) => `exchange-api-key:${userId}/${exchange}`,
  exchangeSecret: (userId: string, exchange: string) => `exchange-secret:${userId}/${exchange}`,
  exchangePassword: (userId: string, exchange: string) => `exchange-password:${userId}/${exchange}`,
  /** The pending and the enabled TOTP seed share it: enabling copies the pending value as is. */
  totp: (userId: string) => `totp:${userId}`,
  signalWebhook: (botId: string) => `signal-webhook:${botId}`,
  /** The embedded chain's owner key (modules/chain/runtime.ts writes the same string). */
  chainOwnerKey: (chainId: number | string) => `chain-owner-key:${chainId}`,
} as const;
