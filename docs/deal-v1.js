// Reference implementation of algorithm deal-v1 (RULES.md) in JavaScript, independent of the Python engine.
// Usage: node docs/deal-v1.js SEED_HEX VARIANT_ID DECK_SIZE  -> the whole shuffled list, top first.
const crypto = require('crypto');
function deal(seedHex, variant, size) {
  const seed = Buffer.from(seedHex, 'hex');
  const key = crypto.createHmac('sha256', seed).update('deal-v1|' + variant, 'utf8').digest();
  let buf = Buffer.alloc(0), i = 0n;
  function next64() {
    if (buf.length < 8) { const b = Buffer.alloc(8); b.writeBigUInt64BE(i++); buf = Buffer.concat([buf, crypto.createHmac('sha256', key).update(b).digest()]); }
    const x = buf.readBigUInt64BE(0); buf = buf.subarray(8); return x;
  }
  function uniform(n) { n = BigInt(n); const T = 1n << 64n; const lim = T - (T % n); for (;;) { const x = next64(); if (x < lim) return Number(x % n); } }
  const ranks = size === 104 ? 'A23456789TJQK'.split('') : 'A6789TJQK'.split('');
  let deck = [];
  for (let c = 0; c < 2; c++) for (const s of 'CDHS') for (const r of ranks) deck.push(r + s);
  for (let k = deck.length - 1; k >= 1; k--) { const j = uniform(k + 1); [deck[k], deck[j]] = [deck[j], deck[k]]; }
  return deck;
}
const [seed, variant, size] = process.argv.slice(2);
console.log(deal(seed, variant, Number(size)).join(' '));
