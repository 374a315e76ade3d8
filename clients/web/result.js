// The end of a game: the result and its statistics, the revealed seed checked against the commitment and
// re-dealt (the hidden cards turned face up), and a won game's certificate, checked in the browser, kept,
// reopened, copied and downloaded.

import { api, ApiError } from './api.js';
import { checkCommitment, checkMix, fromBase64, parseStrict, sha256Hex, verifyCertificate } from './certificate.js';
import { checkDeal } from './deal.js';
import { render } from './draw.js';
import { duration, lang, t } from './i18n.js';
import { reasonCode, reasonText } from './messages.js';
import { celebrate } from './motion.js';
import { revealHidden } from './reveal.js';
import { $, closeMenu, elapsed, say, state, variant, variantName } from './state.js';
import * as store from './storage.js';
import { showDailyNote } from './competition.js';

export async function showResult() {
  const g = state.game;
  const v = variant();
  const won = g.status === 'GAME_STATUS_WON';
  const expired = g.status === 'GAME_STATUS_EXPIRED';
  $('result-title').textContent = t(won ? 'result.won' : g.status === 'GAME_STATUS_RESIGNED' ? 'result.resigned' : expired ? 'result.expired' : 'result.over');
  const seconds = Math.floor(elapsed()); // the bar's clock, stopped at the end: both read the same
  $('result-text').textContent = won
    ? t('result.won-text', { moves: g.moveCount, undos: g.undoCount, time: duration(seconds) })
    : expired
      ? t('result.expired-text')
      : '';
  if (store.counts(g)) {
    const { entry, best } = store.countEnd(g, { won, seconds, moves: g.moveCount });
    $('result-stats').textContent = `${won && best ? `${t('result.new-best')} ` : ''}${t('result.stats', {
      name: variantName(v),
      kind: t(`stats.kind.${store.kindOf(g)}`),
      played: entry.played,
      won: entry.won,
      streak: entry.streak,
    })}`;
  } else {
    $('result-stats').textContent = t('result.watched');
  }
  $('result-again').hidden = !g.seed;
  showShareLink(g);
  $('result').hidden = false;
  const cert = won && g.certificate && g.certificate.encoded ? g.certificate : null;
  // The date of the win (the server's), not of the moment this panel was shown.
  if (cert) store.keepGame(g.gameId, { certificate: cert, finished: Date.parse(g.finishedAt) || Date.now() });
  $('certificate').hidden = !cert;
  $('cert-none').hidden = !(won && !cert);
  if (won) celebrate($('table'));
  showDailyNote(g);
  // A daily game's win during the day has its certificate, sealed: "no certificate" would say otherwise.
  if (g.dealt === 'daily' && !g.seed) $('cert-none').hidden = true;
  if (cert) await fillCertificate($('certificate'), cert);
  await showDeal(g);
}

/**
 * A link that deals this game's deal to anyone: a numbered deal by its number, any other by its revealed seed
 * (a replay: /?variant=ID&replay=SEED, with the game's options and undo setting).
 */
export function shareLink(g) {
  const params = new URLSearchParams({ variant: g.variant });
  for (const [name, value] of Object.entries(g.options || {})) params.set(name, value);
  if (!g.allowUndo) params.set('undo', 'false');
  if (g.dealt === 'public' && g.dealNumber) params.set('deal', String(g.dealNumber));
  else if (g.seed) params.set('replay', g.seed);
  else if (g.dealt === 'daily') params.set('daily', 'true'); // today's daily deal, whoever opens it
  else return '';
  return `${location.origin}/?${params}`;
}

function showShareLink(g) {
  const link = shareLink(g);
  $('share').hidden = !link;
  $('share-link').href = link || '/';
  $('share-link').textContent = link;
}

/** The revealed seed: checked against the commitment, re-dealt, and the hidden cards turned face up. */
async function showDeal(g) {
  const fair = $('fairness');
  fair.hidden = !g.seed;
  if (!g.seed) return;
  const check = await checkCommitment(g.seed, g.commitment);
  const fields = $('seed-fields');
  fields.replaceChildren();
  addField(fields, t('fair.seed'), check.seedHex);
  addField(fields, t('fair.commitment'), check.commitment);
  const status = $('fair-status');
  status.dataset.ok = String(check.ok);
  status.textContent = t(check.ok ? 'fair.ok' : 'fair.bad');
  status.className = check.ok ? 'cert-status ok' : 'cert-status bad';
  await showMixCheck(g);
  await showDealCheck(g);
  await showDealt(g, check.seedHex);
  const v = variant();
  if (g.status !== 'GAME_STATUS_WON' && v && v.family !== 'king-chain') {
    try {
      state.revealed = await revealHidden(fromBase64(g.seed), v, v.deckSize || 104, g.view);
    } catch (err) {
      state.revealed = null;
    }
    $('revealed-note').hidden = !state.revealed;
    render({ animate: false });
  } else {
    $('revealed-note').hidden = true;
  }
  document.body.dataset.revealed = String(Boolean(state.revealed));
}

/**
 * How the deal was chosen: a winnable deal shows the server's winning line (Game.solution, to check with
 * patience verify), a public deal #N that its seed is the public one, a replay that it is one.
 */
async function showDealt(g, seedHex) {
  const note = $('dealt-note');
  const solution = $('solution');
  const list = g.solution || [];
  solution.hidden = !(g.dealt === 'winnable' && list.length);
  $('watch-offer').hidden = solution.hidden;
  $('solution-count').textContent = t('result.solution', { n: list.length });
  $('solution-moves').textContent = list.join(' ');
  note.className = 'summary';
  delete note.dataset.ok;
  if (g.dealt === 'winnable') {
    note.textContent = t('result.winnable');
  } else if (g.dealt === 'replay') {
    note.textContent = t('result.replay');
  } else if (g.dealt === 'public' && g.dealNumber) {
    const n = Number(g.dealNumber);
    const ok = (await sha256Hex(new TextEncoder().encode(`patience-public-deal|${n}`))) === seedHex;
    note.dataset.ok = String(ok);
    note.className = ok ? 'cert-status ok' : 'cert-status bad';
    note.textContent = `${t('result.public', { n, text: `patience-public-deal|${n}` })} ${t(ok ? 'result.public-ok' : 'result.public-bad', { n })}`;
  } else {
    note.textContent = '';
  }
  note.hidden = !note.textContent;
}

async function showMixCheck(g) {
  const status = $('mix-status');
  const record = store.game(g.gameId);
  const committed = record ? record.serverCommitment : null;
  status.hidden = !(g.clientSeed && g.serverSeed);
  delete status.dataset.ok;
  if (status.hidden) return;
  if (!committed) {
    status.className = 'cert-status';
    status.textContent = t('mix.nokept');
    return;
  }
  let check;
  try {
    check = await checkMix(g.serverSeed, g.clientSeed, g.seed, committed);
  } catch (err) {
    check = { ok: false };
  }
  status.dataset.ok = String(check.ok);
  status.className = check.ok ? 'cert-status ok' : 'cert-status bad';
  status.textContent = t(check.ok ? 'mix.ok' : 'mix.bad');
}

async function showDealCheck(g) {
  const status = $('deal-status');
  const record = store.game(g.gameId);
  const first = record ? record.firstView || null : null;
  const v = state.byId.get(g.variant);
  let result;
  try {
    result = await checkDeal(fromBase64(g.seed), g.variant, v ? v.deckSize : 104, first);
  } catch (err) {
    result = { ok: false, reason: 'error' };
  }
  status.dataset.ok = String(result.ok);
  status.className = result.ok ? 'cert-status ok' : result.ok === null ? 'cert-status' : 'cert-status bad';
  status.textContent = result.ok ? t('deal.ok') : result.ok === null ? t('deal.unknown') : t('deal.bad', { reason: result.reason });
}

function addField(list, name, value) {
  const dt = document.createElement('dt');
  dt.textContent = name;
  const dd = document.createElement('dd');
  dd.textContent = String(value ?? '');
  list.append(dt, dd);
}

/** The envelope's text (what certificate.js and the API's VerifyCertificate take). */
function certificateText(cert) {
  return new TextDecoder().decode(fromBase64(cert.encoded));
}

/** The payload a certificate claims, unchecked (for display under a refusal), or {}: read as the verifier reads
 * it, so that a member written twice shows nothing rather than one of its copies. */
function claimed(cert) {
  try {
    return parseStrict(new TextDecoder().decode(fromBase64(parseStrict(certificateText(cert)).payload))) || {};
  } catch (err) {
    return {};
  }
}

/** Fill a certificate box (status, every field of the signed payload, copy and download) for ``cert``. */
async function fillCertificate(root, cert) {
  const status = root.querySelector('.cert-status');
  status.textContent = t('cert.checking');
  status.className = 'cert-status';
  delete status.dataset.valid;
  const fields = root.querySelector('.cert-fields');
  fields.replaceChildren();
  root.querySelector('.cert-copy').onclick = async () => {
    try {
      await navigator.clipboard.writeText(certificateText(cert));
      say(t('msg.copied'));
    } catch (err) {
      say(String(err), 'refused');
    }
  };
  root.querySelector('.cert-download').onclick = () => {
    const blob = new Blob([certificateText(cert)], { type: 'application/json' });
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = `patience-certificate-${cert.gameId || 'game'}.json`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  };
  let result;
  try {
    const keys = await api.signingKeys();
    result = await verifyCertificate(fromBase64(cert.encoded), keys.keys || []);
  } catch (err) {
    result = { valid: false, reason: err instanceof ApiError ? reasonCode(err.reason) || 'NO_KEYS' : 'UNREACHABLE' };
  }
  status.dataset.valid = String(result.valid);
  status.dataset.reason = result.reason;
  status.className = `cert-status ${result.valid ? 'ok' : 'bad'}`;
  const why = reasonText(result.reason) || result.reason;
  status.textContent = result.valid ? t('cert.ok', { key: result.keyId }) : t('cert.bad', { reason: why });
  // Whatever the signed payload holds, in its own order; the well-known fields get names people read. A
  // certificate that did not verify still shows what it claims (under the refusal above).
  const contents = result.contents || claimed(cert);
  for (const [key, value] of Object.entries(contents)) {
    const label = t(`cert.field.${key}`);
    let text = value;
    if (key.endsWith('_at') && typeof value === 'number') text = new Date(value).toISOString();
    else if (key === 'dealt' && t(`cert.dealt.${value}`) !== `cert.dealt.${value}`) text = t(`cert.dealt.${value}`);
    else if (['played', 'result'].includes(key) && t(`cert.${key}.${value}`) !== `cert.${key}.${value}`) text = t(`cert.${key}.${value}`);
    else if (key === 'player' && value && typeof value === 'object') text = `${value.display_name} (${value.id})`;
    else if (Array.isArray(value)) text = value.join(' ');
    else if (value && typeof value === 'object') text = JSON.stringify(value);
    addField(fields, label.startsWith('cert.field.') ? key : label, text);
  }
}

/** The kept certificates, newest first, each reopened and checked again on demand. */
export async function openCertificates() {
  closeMenu();
  const dialog = $('cert-dialog');
  const kept = store.certificates();
  const pick = $('cert-pick');
  pick.replaceChildren();
  for (const c of kept) {
    const o = document.createElement('option');
    o.value = c.id;
    const v = state.byId.get(c.variant);
    o.textContent = `${variantName(v) || c.variant} · ${new Date(c.finished || c.dealt).toLocaleString(lang())} · ${c.id}`;
    pick.append(o);
  }
  const body = $('cert-dialog-body');
  $('cert-pick-field').hidden = !kept.length;
  body.hidden = !kept.length;
  $('cert-dialog-status').textContent = '';
  if (!dialog.open) dialog.showModal();
  if (!kept.length) {
    body.hidden = false;
    body.querySelector('.cert-fields').replaceChildren();
    $('cert-dialog-status').textContent = t('cert.empty');
    body.querySelector('.buttons').hidden = true;
    return;
  }
  body.querySelector('.buttons').hidden = false;
  const current = state.game && kept.find((c) => c.id === state.game.gameId);
  pick.value = current ? current.id : kept[0].id;
  const show = () => fillCertificate(body, store.game(pick.value).certificate);
  pick.onchange = show;
  await show();
}
