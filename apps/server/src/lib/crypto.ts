import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

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
 * AES-256-GCM for secrets at rest (exchange API secrets, TOTP secrets).
 * Format: `v1:<iv b64>:<tag b64>:<ciphertext b64>`; a 12-byte random IV per value.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      'v1',
      iv.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      data.toString('base64'),
    ].join(':');
  }

  open(sealed: string): string {
    const [v, iv, tag, data] = sealed.split(':');
    if (v !== 'v1' || !iv || !tag || !data) throw new Error('Unknown sealed-secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** MASTER_KEY (hex) when set; else a key file made on first run in DATA_DIR with mode 0600. */
export function loadMasterKey(masterKeyHex: string | undefined, dataDir: string): Buffer {
  if (masterKeyHex) return Buffer.from(masterKeyHex, 'hex');
  const file = path.join(dataDir, 'master.key');
  if (fs.existsSync(file)) {
    const hex = fs.readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} does not hold a 64-hex-character key`);
    return Buffer.from(hex, 'hex');
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}
