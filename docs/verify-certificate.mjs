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

// The payload's fields and their JSON types ("played" is optional: certificates signed before it existed lack it).
const FIELDS = {
  type: "string", key_id: "string", game_id: "string", variant: "string", options: "object", deal: "string",
  seed: "string", commitment: "string", moves: "array", move_count: "integer", undo_count: "integer",
  started_at: "integer", finished_at: "integer", ticket_id: "string", final_state_hash: "string", result: "string",
};
const MAX_INT = 2 ** 53 - 1;

// Code-point order (Python's sort of str), not JavaScript's default UTF-16 order: they differ only beyond U+FFFF.
function byCodePoint(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

// The canonical JSON text of a parsed value (docs/certificates.md, "Canonical JSON"): keys sorted, no
// whitespace; JSON.stringify escapes strings exactly as the signer does.
function canonical(value) {
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (value !== null && typeof value === "object") {
    return "{" + Object.keys(value).sort(byCodePoint).map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
  }
  return JSON.stringify(value);
}

function sameBytes(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function kind(value) {
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return value === null ? "null" : typeof value;
}

// The payload's own checks, in the service's order; "" when they pass.
function checkPayload(payload, envelopeKeyId) {
  let contents, text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(payload);
    contents = JSON.parse(text);
  } catch {
    return "malformed";
  }
  if (kind(contents) !== "object") return "malformed";
  const again = canonical(contents);
  // A lone surrogate (\ud800) has no UTF-8 form: the signer cannot have written it.
  if (/\\ud[89a-f][0-9a-f]{2}/.test(again) || !sameBytes(new TextEncoder().encode(again), payload)) return "malformed";
  if (contents.type !== TYPE) return "unsupported-type";
  if ("played" in contents && contents.played !== "moves" && contents.played !== "submitted") return "malformed";
  const names = Object.keys(contents).filter((k) => k !== "played").sort().join(",");
  if (names !== Object.keys(FIELDS).sort().join(",")) return "malformed";
  for (const [name, type] of Object.entries(FIELDS)) {
    const value = contents[name];
    if (kind(value) !== type) return "malformed";
    if (type === "integer" && !(value >= 0 && value <= MAX_INT)) return "malformed";
  }
  if (contents.result !== "won") return "malformed";
  if (!Object.values(contents.options).every((v) => typeof v === "string")) return "malformed";
  if (!contents.moves.every((m) => typeof m === "string")) return "malformed";
  if (!/^[0-9a-f]{64}$/.test(contents.seed) || !/^[0-9a-f]{64}$/.test(contents.commitment)) return "malformed";
  if (contents.key_id !== envelopeKeyId) return "key-mismatch";
  if (contents.deal !== DEAL) return "unsupported-deal-algorithm";
  return "";
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
    if (kind(envelope) !== "object" || keys !== "key_id,payload,signature" || typeof envelope.key_id !== "string") {
      throw new Error("envelope");
    }
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
  const problem = checkPayload(payload, envelope.key_id);
  if (problem) return { valid: false, reason: problem };
  const contents = JSON.parse(new TextDecoder().decode(payload));
  const seed = Uint8Array.from(contents.seed.match(/../g), (h) => parseInt(h, 16));
  if (hex(await crypto.subtle.digest("SHA-256", seed)) !== contents.commitment) {
    return { valid: false, reason: "commitment-mismatch" };
  }
  if (contents.moves.length !== contents.move_count) return { valid: false, reason: "count-mismatch" };
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
