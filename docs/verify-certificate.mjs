// Reference verifier of patience certificates (docs/certificates.md), WebCrypto only: the same code runs in a
// browser and in Node.js >= 20. It is independent of the Python service, and tests/test_certificates.py runs it.
//
//   import { verifyCertificate } from "./verify-certificate.mjs";
//   const { valid, reason, contents } = await verifyCertificate(certificateText, { [keyId]: rawPublicKeyBytes });
//
// Command line: node docs/verify-certificate.mjs CERTIFICATE_FILE KEY_ID=BASE64_PUBLIC_KEY ...
//   prints {"valid":..,"reason":..} and exits 0 only for a valid certificate.

const TYPE = "patience-certificate/v1";
const DEAL = "deal-v2"; // the one deal algorithm (docs/deal-v2.md); deal-v1 was withdrawn before release

function fromBase64(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
    throw new Error("not base64");
  }
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * @param {string | Uint8Array} encoded  the certificate (Certificate.encoded)
 * @param {Record<string, Uint8Array>} publicKeys  raw 32-byte Ed25519 public keys by key id (GetSigningKeys)
 * @returns {Promise<{valid: boolean, reason: string, contents?: object}>}
 */
export async function verifyCertificate(encoded, publicKeys) {
  let envelope, payload, signature;
  try {
    const text = typeof encoded === "string" ? encoded : new TextDecoder("utf-8", { fatal: true }).decode(encoded);
    envelope = JSON.parse(text);
    const keys = Object.keys(envelope ?? {}).sort().join(",");
    if (keys !== "key_id,payload,signature" || typeof envelope.key_id !== "string") throw new Error("envelope");
    payload = fromBase64(envelope.payload);
    signature = fromBase64(envelope.signature);
  } catch {
    return { valid: false, reason: "malformed" };
  }
  const raw = Object.hasOwn(publicKeys, envelope.key_id) ? publicKeys[envelope.key_id] : undefined;
  if (!raw) return { valid: false, reason: "unknown-key" };
  // 1. The signature, over the exact payload bytes ...
  const key = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
  if (!(await crypto.subtle.verify({ name: "Ed25519" }, key, signature, payload))) {
    return { valid: false, reason: "bad-signature" };
  }
  // 2. ... and only then the fields.
  let contents;
  try {
    contents = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch {
    return { valid: false, reason: "malformed" };
  }
  if (contents?.type !== TYPE) return { valid: false, reason: "unsupported-type" };
  if (contents.key_id !== envelope.key_id) return { valid: false, reason: "key-mismatch" };
  if (contents.deal !== DEAL) return { valid: false, reason: "unsupported-deal-algorithm" };
  if (typeof contents.seed !== "string" || !/^[0-9a-f]{64}$/.test(contents.seed)) {
    return { valid: false, reason: "malformed" };
  }
  const digest = hex(await crypto.subtle.digest("SHA-256", Uint8Array.from(contents.seed.match(/../g), (h) => parseInt(h, 16))));
  if (digest !== contents.commitment) return { valid: false, reason: "commitment-mismatch" };
  if (!Array.isArray(contents.moves) || contents.moves.length !== contents.move_count) {
    return { valid: false, reason: "count-mismatch" };
  }
  return { valid: true, reason: "", contents };
}

// Command line (Node.js only).
if (typeof process !== "undefined" && import.meta.url === `file://${process.argv[1]}`) {
  const { readFileSync } = await import("node:fs");
  const [file, ...keyArgs] = process.argv.slice(2);
  const keys = Object.fromEntries(keyArgs.map((a) => [a.split("=")[0], fromBase64(a.slice(a.indexOf("=") + 1))]));
  const result = await verifyCertificate(readFileSync(file), keys);
  console.log(JSON.stringify({ valid: result.valid, reason: result.reason }));
  process.exit(result.valid ? 0 : 1);
}
