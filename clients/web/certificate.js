// Checking a win certificate in the browser with WebCrypto Ed25519 against the published keys
// (GetSigningKeys). The format is docs/certificates.md: a canonical JSON envelope
// {"key_id", "payload": base64(canonical JSON), "signature": base64(Ed25519(payload))}; the signature is
// checked over the exact payload bytes first, and only then are the fields read
// (the same steps as the reference verifier docs/verify-certificate.mjs).

const TYPE = 'patience-certificate/v1';
const DEAL = 'deal-v2'; // the one deal algorithm (docs/deal-v2.md); deal-v1 was withdrawn before release

export function fromBase64(text) {
  if (typeof text !== 'string') throw new Error('not base64');
  const std = text.replace(/-/g, '+').replace(/_/g, '/');
  const padded = std + '='.repeat((4 - (std.length % 4)) % 4);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(padded)) throw new Error('not base64');
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

export function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function sha256Hex(bytes) {
  return hex(await crypto.subtle.digest('SHA-256', bytes));
}

/**
 * @param {Uint8Array} encoded  Certificate.encoded (the API's bytes field, already decoded from base64)
 * @param {Array<{keyId: string, publicKey: string}>} keys  GetSigningKeys().keys (public keys in base64)
 * @returns {Promise<{valid: boolean, reason: string, keyId?: string, contents?: object}>}
 */
export async function verifyCertificate(encoded, keys) {
  if (!globalThis.crypto || !crypto.subtle) return { valid: false, reason: 'no-webcrypto' };
  let envelope;
  let payload;
  let signature;
  try {
    envelope = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(encoded));
    const names = Object.keys(envelope ?? {}).sort().join(',');
    if (names !== 'key_id,payload,signature' || typeof envelope.key_id !== 'string') throw new Error('envelope');
    payload = fromBase64(envelope.payload);
    signature = fromBase64(envelope.signature);
  } catch (err) {
    return { valid: false, reason: 'malformed' };
  }
  const published = keys.find((k) => k.keyId === envelope.key_id);
  if (!published) return { valid: false, reason: 'unknown-key', keyId: envelope.key_id };
  let key;
  try {
    key = await crypto.subtle.importKey('raw', fromBase64(published.publicKey), { name: 'Ed25519' }, false, ['verify']);
  } catch (err) {
    return { valid: false, reason: 'no-ed25519', keyId: envelope.key_id };
  }
  if (!(await crypto.subtle.verify({ name: 'Ed25519' }, key, signature, payload))) {
    return { valid: false, reason: 'bad-signature', keyId: envelope.key_id };
  }
  let contents;
  try {
    contents = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch (err) {
    return { valid: false, reason: 'malformed', keyId: envelope.key_id };
  }
  if (contents?.type !== TYPE) return { valid: false, reason: 'unsupported-type', keyId: envelope.key_id };
  if (contents.key_id !== envelope.key_id) return { valid: false, reason: 'key-mismatch', keyId: envelope.key_id };
  if (contents.deal !== DEAL) return { valid: false, reason: 'unsupported-deal-algorithm', keyId: envelope.key_id, contents };
  if (typeof contents.seed !== 'string' || !/^[0-9a-f]{64}$/.test(contents.seed)) {
    return { valid: false, reason: 'malformed', keyId: envelope.key_id };
  }
  const seed = Uint8Array.from(contents.seed.match(/../g), (h) => parseInt(h, 16));
  if ((await sha256Hex(seed)) !== contents.commitment) {
    return { valid: false, reason: 'commitment-mismatch', keyId: envelope.key_id, contents };
  }
  if (!Array.isArray(contents.moves) || contents.moves.length !== contents.move_count) {
    return { valid: false, reason: 'count-mismatch', keyId: envelope.key_id, contents };
  }
  return { valid: true, reason: '', keyId: envelope.key_id, contents };
}

/**
 * Whether a client-seeded deal mixed the server seed the server committed to before it saw the client seed:
 * SHA-256(serverSeed) == the PrepareGame commitment kept by this page, and
 * seed == HMAC-SHA256(serverSeed, "patience-mix-v1|" + clientSeed) (docs/fairness.md).
 */
export async function checkMix(serverSeedBase64, clientSeedBase64, seedBase64, serverCommitmentBase64) {
  const serverSeed = fromBase64(serverSeedBase64);
  const committed = (await sha256Hex(serverSeed)) === hex(fromBase64(serverCommitmentBase64));
  const label = new TextEncoder().encode('patience-mix-v1|');
  const clientSeed = fromBase64(clientSeedBase64);
  const message = new Uint8Array(label.length + clientSeed.length);
  message.set(label);
  message.set(clientSeed, label.length);
  const key = await crypto.subtle.importKey('raw', serverSeed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mixed = hex(new Uint8Array(await crypto.subtle.sign('HMAC', key, message)));
  return { ok: committed && mixed === hex(fromBase64(seedBase64)), committed };
}

/** Whether a revealed seed is the one the server committed to when it dealt (SHA-256(seed) == commitment). */
export async function checkCommitment(seedBase64, commitmentBase64) {
  const seed = fromBase64(seedBase64);
  const commitment = hex(fromBase64(commitmentBase64));
  return { ok: seed.length === 32 && (await sha256Hex(seed)) === commitment, seedHex: hex(seed), commitment };
}
