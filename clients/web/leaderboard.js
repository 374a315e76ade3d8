// Checking a leaderboard in the browser (docs/competition.md, "Checking a board"): each entry by its certificate,
// with the published keys. The same check as patience.leaderboards in Python, held to the same shared vectors
// (docs/certificate-vectors/leaderboard.json). A board is GetLeaderboard's answer as REST gives it (JSON).
//
//   import { checkLeaderboard } from "./leaderboard.js";
//   const { reason, entries } = await checkLeaderboard(board, keys);   // entries: [{rank, playerId, reason}]

import { fromBase64, hex, parseBoardName, sha256Hex, verifyCertificate } from './certificate.js';

const LOWEST = [0, 0, 0, 0];

/** What ranks a win, compared element by element (smaller is better): undo or not, moves, play time, finish. */
export function rankKey(undoCount, moveCount, startedAt, finishedAt) {
  return [undoCount > 0 ? 1 : 0, moveCount, Math.max(0, finishedAt - startedAt), finishedAt];
}

function before(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/** A Duration as the JSON mapping writes it ("1.5s") in milliseconds. */
function durationMs(text) {
  const match = /^(-?\d+)(?:\.(\d{1,9}))?s$/.exec(text ?? '0s');
  if (!match) return NaN;
  return Number(match[1]) * 1000 + Math.floor(Number(((match[2] ?? '') + '000').slice(0, 3)));
}

async function publicSeedHex(number) {
  return sha256Hex(new TextEncoder().encode(`patience-public-deal|${number}`));
}

async function boardReason(board) {
  const parsed = parseBoardName(board.board);
  if (!parsed || parsed.kind !== board.kind) return 'BAD_BOARD';
  const number = Number(board.dealNumber ?? 0);
  if (parsed.kind === 'daily' && (parsed.date !== (board.date ?? '') || number !== 0)) return 'BAD_BOARD';
  if (parsed.kind === 'public' && ((board.date ?? '') !== '' || parsed.number !== number)) return 'BAD_BOARD';
  const seed = board.seed ? hex(fromBase64(board.seed)) : '';
  if (parsed.kind === 'public' && seed !== (await publicSeedHex(number))) return 'SEED_MISMATCH';
  if (seed && (await sha256Hex(fromBase64(board.seed))) !== hex(fromBase64(board.commitment ?? ''))) {
    return 'SEED_MISMATCH';
  }
  if (parsed.kind === 'daily' && !seed) return 'SEALED';
  return '';
}

async function entryReason(board, entry, keys) {
  const encoded = entry.certificate?.encoded;
  if (!encoded) return { reason: 'NO_CERTIFICATE' };
  const checked = await verifyCertificate(fromBase64(encoded), keys);
  if (!checked.valid) return { reason: checked.reason };
  const c = checked.contents;
  const key = rankKey(c.undo_count, c.move_count, c.started_at, c.finished_at);
  if (c.board !== board.board) return { reason: 'OTHER_BOARD', key };
  if (c.player?.id !== entry.player?.id || c.player?.display_name !== entry.player?.displayName) {
    return { reason: 'OTHER_PLAYER', key };
  }
  if (c.seed !== (board.seed ? hex(fromBase64(board.seed)) : '')) return { reason: 'OTHER_DEAL', key };
  const said = [entry.moveCount, entry.undoCount, entry.hintCount, entry.played, entry.gameId,
    Date.parse(entry.finishedAt), durationMs(entry.playTime)];
  const signed = [c.move_count, c.undo_count, c.hints ?? 0, c.played ?? '', c.game_id, c.finished_at, key[2]];
  if (said.some((value, i) => (value ?? (i === 3 || i === 4 ? '' : 0)) !== signed[i])) {
    return { reason: 'ENTRY_MISMATCH', key };
  }
  return { reason: '', key };
}

async function check(board, keys, previous) {
  const reason = await boardReason(board);
  const entries = board.entries ?? [];
  if (reason === 'BAD_BOARD' || reason === 'SEALED') {
    return { result: { reason, entries: entries.map((e) => ({ rank: e.rank, playerId: e.player?.id, reason })) } };
  }
  const out = [];
  let last = previous;
  for (const entry of entries) {
    let { reason: why, key } = await entryReason(board, entry, keys);
    if (key && !why && last && (entry.rank !== last[0] + 1 || before(key, last[1]))) why = 'OUT_OF_ORDER';
    last = [entry.rank, key ?? (last ? last[1] : LOWEST)];
    out.push({ rank: entry.rank, playerId: entry.player?.id, reason: why });
  }
  return { result: { reason, entries: out }, last };
}

/**
 * One page of a board: the board's reason ("" when its name, seed and commitment agree) and each entry's ("" when
 * its certificate checks and says what the entry says). The page's first rank is not checked (checkPages does).
 */
export async function checkLeaderboard(board, keys) {
  return (await check(board, keys, null)).result;
}

/** A whole board, its pages in order from the first: ranks from 1, the order checked across pages. */
export async function checkPages(pages, keys) {
  let previous = [0, LOWEST];
  let reason = '';
  const entries = [];
  for (const page of pages) {
    const { result, last } = await check(page, keys, previous);
    previous = last ?? null;
    reason ||= result.reason;
    entries.push(...result.entries);
  }
  return { board: pages[0]?.board ?? '', reason, entries };
}
