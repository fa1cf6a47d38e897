// Deterministic ids for what the engine creates (trades, fills, ledger entries, settlements):
// a version-8 UUID made of the input's sequence number and a per-step counter, so replaying the
// same inputs yields the same ids. Order ids come from outside (the caller chooses them).

export type IdKind = 'trade' | 'fill' | 'ledger' | 'settlement' | 'record';

const KIND_CODE: Record<IdKind, string> = { trade: '001', fill: '002', ledger: '003', settlement: '004', record: '005' };

export function engineId(seq: number, kind: IdKind, counter: number): string {
  const seqHex = seq.toString(16).padStart(12, '0');
  const counterHex = counter.toString(16).padStart(12, '0');
  return `${seqHex.slice(0, 8)}-${seqHex.slice(8, 12)}-8${KIND_CODE[kind]}-8000-${counterHex}`;
}
