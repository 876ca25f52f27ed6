import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Secrets at rest (CRM tokens, webhook signing secrets): AES-256-GCM with a random 96-bit nonce per value and
// the row's purpose as additional data, so a value copied into another
// column (an access token posing as a refresh token) does not decrypt.
// Stored as `v1.<nonce>.<tag>.<ciphertext>`, each base64url.

export function encryptToken(key: Buffer, plaintext: string, purpose: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', nonce, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

export function decryptToken(key: Buffer, stored: string, purpose: string): string {
  const [version, nonce, tag, ciphertext] = stored.split('.');
  if (version !== 'v1' || !nonce || !tag || ciphertext === undefined) throw new Error('not an encrypted token');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
  decipher.setAAD(Buffer.from(purpose, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
