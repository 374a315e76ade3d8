// Checking win certificates (docs/certificates.md) with WebCrypto Ed25519 against the published keys
// (GetSigningKeys): the project's one JavaScript verifier, for the web page and for Node.js >= 20, checked
// against the shared vectors in docs/certificate-vectors by the tests. The format is a canonical JSON envelope
// {"key_id", "payload": base64(canonical JSON), "signature": base64(Ed25519(payload))}; the signature is checked
// over the exact payload bytes first, and only then are the fields read, in the service's order.
//
//   import { verifyCertificate } from "./certificate.js";
//   const { valid, reason, contents } = await verifyCertificate(certificateText, keys);
//
// Command line: node clients/web/certificate.js CERTIFICATE_FILE KEY_ID=BASE64_PUBLIC_KEY ...
//   prints {"valid":..,"reason":..} and exits 0 only for a valid certificate.

const TYPE = 'patience-certificate/v1';
const DEAL = 'deal-v2'; // the one deal algorithm (docs/deal-v2.md); deal-v1 was withdrawn before release

/** Base64 as the API sends bytes (standard or URL-safe alphabet, padding optional). */
export function fromBase64(text) {
  if (typeof text !== 'string') throw new Error('not base64');
  const std = text.replace(/-/g, '+').replace(/_/g, '/');
  const padded = std + '='.repeat((4 - (std.length % 4)) % 4);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(padded)) throw new Error('not base64');
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Base64 inside a certificate: standard alphabet, padded, and the bits the padding leaves over zero
 * (docs/certificates.md): the one text of its bytes, as the service reads it. atob would ignore those bits.
 */
function strictBase64(text) {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
    throw new Error('not base64');
  }
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (pad && BASE64.indexOf(text[text.length - pad - 1]) % (pad === 2 ? 16 : 4) !== 0) throw new Error('not base64');
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

// No JSON text of a certificate nests deeper (the service's limit too, docs/certificates.md).
const MAX_DEPTH = 32;
// After JSON.parse has checked the syntax, a scan needs only strings, brackets and colons.
const TOKENS = /"(?:[^"\\]|\\.)*"|[{}[\]:]/g;

/**
 * JSON.parse, refusing an object that names a member twice (at any depth) or nesting deeper than 32 levels.
 * JSON.parse keeps the last of two copies, another reader the first: a certificate must read one way only.
 */
export function parseStrict(text) {
  const value = JSON.parse(text);
  const open = []; // per open bracket: the member names seen (an object), or null (an array)
  let last = '';
  for (const [token] of text.matchAll(TOKENS)) {
    if (token === '{' || token === '[') {
      open.push(token === '{' ? new Set() : null);
      if (open.length > MAX_DEPTH) throw new Error('nested too deeply');
    } else if (token === '}' || token === ']') {
      open.pop();
    } else if (token === ':') {
      const name = JSON.parse(last); // escapes decoded: "a" and "\u0061" are the same name
      if (open.at(-1).has(name)) throw new Error(`the member ${JSON.stringify(name)} appears twice`);
      open.at(-1).add(name);
    } else {
      last = token;
    }
  }
  return value;
}

export function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

export async function sha256Hex(bytes) {
  return hex(await crypto.subtle.digest('SHA-256', bytes));
}

// The payload's fields and their JSON types ("played", "dealt" with "deal_number", and "hints" are optional:
// certificates signed before they existed lack them; "player" and "board" are only in a signed-in player's win).
const FIELDS = {
  type: "string", key_id: "string", game_id: "string", variant: "string", options: "object", deal: "string",
  seed: "string", commitment: "string", moves: "array", move_count: "integer", undo_count: "integer",
  started_at: "integer", finished_at: "integer", ticket_id: "string", final_state_hash: "string", result: "string",
};
const MAX_INT = 2 ** 53 - 1;
const OPTIONAL = ['played', 'dealt', 'deal_number', 'hints', 'player', 'board'];
// How a deal was chosen (the "dealt" field); deal_number is 1 .. 2^32-1 for "public" and 0 for the others.
export const DEALT = ['random', 'ticket', 'winnable', 'replay', 'public', 'daily'];
const MAX_DEAL_NUMBER = 2 ** 32 - 1;
const PLAYER_ID = /^p_[a-z2-7]{26}$/;
const MAX_PLAYER_NAME = 32;
// A board's name (docs/competition.md; patience.boards): daily-VARIANT-YYYY-MM-DD or public-VARIANT-N, then
// ":name=value" for each option that is not the default, sorted by name.
const BOARD_OPTIONS = '((?::[a-z0-9_]+=(?:true|false|0|[1-9][0-9]*))*)';
const DAILY_BOARD = new RegExp(
  `^daily-([a-z0-9]+(?:-[a-z0-9]+)*)-([0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01]))${BOARD_OPTIONS}$`,
);
const PUBLIC_BOARD = new RegExp(`^public-([a-z0-9]+(?:-[a-z0-9]+)*)-([1-9][0-9]{0,9})${BOARD_OPTIONS}$`);
const MAX_BOARD_LENGTH = 160;

/** A board name read by its grammar: {kind, variant, date, number, options: [[name, value], ...]}, or null. */
export function parseBoardName(name) {
  if (typeof name !== 'string' || name.length > MAX_BOARD_LENGTH) return null;
  const daily = DAILY_BOARD.exec(name);
  const found = daily || PUBLIC_BOARD.exec(name);
  if (!found) return null;
  const options = found[3].split(':').slice(1).map((o) => o.split('='));
  const names = options.map(([k]) => k);
  if (names.some((k, i) => i > 0 && !(names[i - 1] < k))) return null; // sorted, each once
  const number = daily ? 0 : Number(found[2]);
  if (number > MAX_DEAL_NUMBER) return null;
  return { kind: daily ? 'daily' : 'public', variant: found[1], date: daily ? found[2] : '', number, options };
}

function playerProblem(player) {
  if (kind(player) !== 'object' || Object.keys(player).sort().join(',') !== 'display_name,id') return true;
  if (typeof player.id !== 'string' || !PLAYER_ID.test(player.id)) return true;
  const name = player.display_name;
  return typeof name !== 'string' || Array.from(name).length < 1 || Array.from(name).length > MAX_PLAYER_NAME;
}

// The board names this certificate's deal: its variant, how it was dealt, the options it lists; and only beside
// a player (only a signed-in player's win ranks).
function boardProblem(contents) {
  const board = parseBoardName(contents.board);
  if (!board || !('player' in contents)) return true;
  if (board.variant !== contents.variant) return true;
  if (board.options.some(([k, v]) => contents.options?.[k] !== v)) return true;
  if (board.kind === 'public') return contents.dealt !== 'public' || contents.deal_number !== board.number;
  return contents.dealt !== 'daily';
}

function dealtProblem(contents) {
  if (('dealt' in contents) !== ('deal_number' in contents)) return true;
  if (!('dealt' in contents)) return false;
  const { dealt, deal_number: number } = contents;
  if (!DEALT.includes(dealt) || !Number.isInteger(number)) return true;
  return dealt === 'public' ? !(number >= 1 && number <= MAX_DEAL_NUMBER) : number !== 0;
}

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
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(payload);
    contents = parseStrict(text);
  } catch {
    return "MALFORMED";
  }
  if (kind(contents) !== "object") return "MALFORMED";
  const again = canonical(contents);
  // A lone surrogate (\ud800) has no UTF-8 form: the signer cannot have written it.
  if (/\\ud[89a-f][0-9a-f]{2}/.test(again) || !sameBytes(new TextEncoder().encode(again), payload)) return "MALFORMED";
  if (contents.type !== TYPE) return "UNSUPPORTED_TYPE";
  if ("played" in contents && contents.played !== "moves" && contents.played !== "submitted") return "MALFORMED";
  if (dealtProblem(contents)) return "MALFORMED";
  if ("hints" in contents && !(kind(contents.hints) === "integer" && contents.hints >= 0 && contents.hints <= MAX_INT)) {
    return "MALFORMED";
  }
  if ("player" in contents && playerProblem(contents.player)) return "MALFORMED";
  const names = Object.keys(contents).filter((k) => !OPTIONAL.includes(k)).sort().join(",");
  if (names !== Object.keys(FIELDS).sort().join(",")) return "MALFORMED";
  for (const [name, type] of Object.entries(FIELDS)) {
    const value = contents[name];
    if (kind(value) !== type) return "MALFORMED";
    if (type === "integer" && !(value >= 0 && value <= MAX_INT)) return "MALFORMED";
  }
  if (contents.result !== "won") return "MALFORMED";
  if (!Object.values(contents.options).every((v) => typeof v === "string")) return "MALFORMED";
  if (!contents.moves.every((m) => typeof m === "string")) return "MALFORMED";
  // An option value's one spelling: "true", "false" or decimal ("True", "yes", "03" are not read).
  if (!Object.values(contents.options).every((v) => /^(?:true|false|0|[1-9][0-9]*)$/.test(v))) return "MALFORMED";
  if (!["seed", "commitment", "final_state_hash"].every((f) => /^[0-9a-f]{64}$/.test(contents[f]))) return "MALFORMED";
  if ("board" in contents && boardProblem(contents)) return "MALFORMED";
  if (contents.key_id !== envelopeKeyId) return "KEY_MISMATCH";
  if (contents.deal !== DEAL) return "UNSUPPORTED_DEAL_ALGORITHM";
  return "";
}

/** The raw public key for ``keyId``: from GetSigningKeys' list ({keyId, publicKey: base64}) or a map of raw keys. */
function publicKeyOf(keys, keyId) {
  if (Array.isArray(keys)) {
    const published = keys.find((k) => k.keyId === keyId);
    return published ? fromBase64(published.publicKey) : undefined;
  }
  return Object.hasOwn(keys, keyId) ? keys[keyId] : undefined;
}

/**
 * @param {string | Uint8Array} encoded  the certificate (Certificate.encoded: its text, or its bytes)
 * @param {Array<{keyId: string, publicKey: string}> | Record<string, Uint8Array>} keys  GetSigningKeys().keys, or
 *   raw 32-byte Ed25519 public keys by key id
 * @returns {Promise<{valid: boolean, reason: string, keyId?: string, contents?: object}>}
 */
export async function verifyCertificate(encoded, keys) {
  if (!globalThis.crypto || !crypto.subtle) return { valid: false, reason: 'NO_WEBCRYPTO' };
  let envelope, payload, signature;
  try {
    // UTF-8 and nothing else: a byte order mark stays in the text, and JSON.parse refuses it, as the service does.
    const text =
      typeof encoded === 'string' ? encoded : new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(encoded);
    envelope = parseStrict(text);
    const names = Object.keys(envelope ?? {}).sort().join(',');
    if (kind(envelope) !== 'object' || names !== 'key_id,payload,signature' || typeof envelope.key_id !== 'string') {
      throw new Error('envelope');
    }
    payload = strictBase64(envelope.payload);
    signature = strictBase64(envelope.signature);
  } catch {
    return { valid: false, reason: 'MALFORMED' };
  }
  const keyId = envelope.key_id;
  let raw;
  try {
    raw = publicKeyOf(keys, keyId);
  } catch {
    raw = undefined;
  }
  if (!raw) return { valid: false, reason: 'UNKNOWN_KEY', keyId };
  let key;
  try {
    key = await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
  } catch {
    return { valid: false, reason: 'NO_ED25519', keyId };
  }
  // 1. The signature, over the exact payload bytes ...
  if (!(await crypto.subtle.verify({ name: 'Ed25519' }, key, signature, payload))) {
    return { valid: false, reason: 'BAD_SIGNATURE', keyId };
  }
  // 2. ... and only then the fields.
  const problem = checkPayload(payload, keyId);
  const contents = problem === '' || problem === 'UNSUPPORTED_DEAL_ALGORITHM' ? parseStrict(new TextDecoder().decode(payload)) : undefined;
  if (problem) return { valid: false, reason: problem, keyId, contents };
  const seed = Uint8Array.from(contents.seed.match(/../g), (h) => parseInt(h, 16));
  if ((await sha256Hex(seed)) !== contents.commitment) {
    return { valid: false, reason: 'COMMITMENT_MISMATCH', keyId, contents };
  }
  if (contents.moves.length !== contents.move_count) return { valid: false, reason: 'COUNT_MISMATCH', keyId, contents };
  return { valid: true, reason: '', keyId, contents };
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

// Command line (Node.js only).
if (typeof process !== 'undefined' && process.argv && import.meta.url === `file://${process.argv[1]}`) {
  const { readFileSync } = await import('node:fs');
  const [file, ...keyArgs] = process.argv.slice(2);
  const keys = Object.fromEntries(keyArgs.map((a) => [a.split('=')[0], strictBase64(a.slice(a.indexOf('=') + 1))]));
  const result = await verifyCertificate(readFileSync(file), keys);
  console.log(JSON.stringify({ valid: result.valid, reason: result.reason }));
  process.exit(result.valid ? 0 : 1);
}
