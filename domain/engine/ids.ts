// Deterministic ids for what the engine creates (trades, fills, ledger entries, settlements):
// a version-8 UUID made of the input's sequence number and a per-step counter, so replaying the
// same inputs yields the same ids. Order ids come from outside (the caller chooses them).

export type IdKind = 'trade' | 'fill' | 'ledger' | 'settlement' | 'record';

const KIND_CODE: Record<IdKind, string> = {
  trade: '001',
  fill: '002',
  ledger: '003',
  settlement: '004',
  record: '005',
};

export function engineId(seq: number, kind: IdKind, counter: number): string {
  return `${seqPart(seq)}${KIND_CODE[kind]}-8000-${hex12(counter)}`;
}

/** `hex12(seq)` cut as the id's first two groups, then the version digit; the last one made is kept (a step makes several ids). */
let lastSeq = -1;
let lastSeqPart = '';
function seqPart(seq: number): string {
  if (seq !== lastSeq) {
    const seqHex = hex12(seq);
    lastSeqPart = `${seqHex.slice(0, 8)}-${seqHex.slice(8, 12)}-8`;
    lastSeq = seq;
  }
  return lastSeqPart;
}

const ZEROS = '000000000000';
function hex12(value: number): string {
  const hex = value.toString(16);
  return hex.length >= 12 ? hex : ZEROS.slice(hex.length) + hex;
}
