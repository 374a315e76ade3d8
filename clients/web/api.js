// The REST client: the routes of /openapi.json, JSON in and out, errors as ApiError.
// Only the API is used; the page never holds more than a player may see.

import { reasonCode } from './messages.js';

export class ApiError extends Error {
  /** ``retryAfter``: the seconds of a Retry-After header (HINTS_BUSY, RATE_LIMITED, an empty pool), else null. */
  constructor(httpStatus, status, retryAfter = null) {
    super((status && status.message) || `HTTP ${httpStatus}`);
    this.httpStatus = httpStatus;
    this.code = status ? status.code : 0;
    const info = ((status && status.details) || []).find((d) => (d['@type'] || '').endsWith('google.rpc.ErrorInfo'));
    this.reason = info ? reasonCode(info.reason) : '';
    this.metadata = (info && info.metadata) || {};
    const raw = retryAfter ?? this.metadata.retry_after_seconds ?? '';
    this.retryAfter = raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : null;
  }
}

async function call(method, path, { body, token, query } = {}) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  let url = path;
  if (query) {
    const q = new URLSearchParams(query).toString();
    if (q) url += `?${q}`;
  }
  const init = { method, headers, cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    const unreachable = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'UNREACHABLE' };
    throw new ApiError(0, { message: '', details: [unreachable] });
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data, response.headers.get('retry-after'));
  return data;
}

const game = (id) => `/v1/games/${encodeURIComponent(id)}`;

export const api = {
  listVariants: () => call('GET', '/v1/variants'),
  prepareGame: () => call('POST', '/v1/games:prepare', { body: {} }),
  /** NewGame; with a player's identity token the game is the player's (docs/players.md). */
  newGame: (request, identity = null) => call('POST', '/v1/games', { body: request, token: identity }),
  getGame: (id, token, includeMoves = false) =>
    call('GET', game(id), { token, query: includeMoves ? { includeMoves: 'true' } : undefined }),
  applyMove: (id, token, expectedVersion, text) =>
    call('POST', `${game(id)}/moves`, { token, body: { expectedVersion: String(expectedVersion), text } }),
  undoMove: (id, token, expectedVersion) =>
    call('POST', `${game(id)}/undo`, { token, body: { expectedVersion: String(expectedVersion) } }),
  legalMoves: (id, token) => call('GET', `${game(id)}/legal-moves`, { token }),
  hint: (id, token) => call('GET', `${game(id)}/hint`, { token }),
  autoPlay: (id, token, expectedVersion) =>
    call('POST', `${game(id)}/autoplay`, { token, body: { expectedVersion: String(expectedVersion) } }),
  resign: (id, token, expectedVersion) =>
    call('POST', `${game(id)}/resign`, { token, body: { expectedVersion: String(expectedVersion) } }),
  submitSolution: (id, token, moves) => call('POST', `${game(id)}/solution`, { token, body: { moves } }),
  verifyCertificate: (encoded) => call('POST', '/v1/certificates/verify', { body: { certificate: encoded } }),
  signingKeys: () => call('GET', '/v1/signing-keys'),
  // Players (docs/players.md): ``identity`` is the player's identity token (a JWT), sent as the bearer.
  createGuest: (displayName) => call('POST', '/v1/players:guest', { body: { displayName } }),
  getPlayer: (identity) => call('GET', '/v1/players/me', { token: identity }),
  updatePlayer: (identity, displayName) => call('PATCH', '/v1/players/me', { token: identity, body: { displayName } }),
  erasePlayer: (identity) => call('DELETE', '/v1/players/me', { token: identity }),
  listGames: (identity, pageToken = '', pageSize = 20) =>
    call('GET', '/v1/players/me/games', { token: identity, query: { pageSize: String(pageSize), ...(pageToken ? { pageToken } : {}) } }),
};
