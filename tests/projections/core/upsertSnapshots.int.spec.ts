// The statement every core slice writes its rows with (projections/core/slices/batch.ts): rows
// sent column by column keep every value exactly, whatever characters their text and documents
// hold, and the seq guard keeps a stored row newer than the one offered.

import { expect } from 'chai';
import { upsertSnapshots } from '../../../projections/core/slices/batch.ts';
import { inTransaction } from '../../../projections/runtime/transaction.ts';
import { testDatabase, type TestDatabase } from '../../support/pg.ts';

const SPEC = {
  table: 'snapshots',
  key: ['id'],
  columns: [
    ['id', 'text'],
    ['label', 'text'],
    ['amount', 'numeric'],
    ['flag', 'boolean'],
    ['seq', 'bigint'],
    ['ins_pos', 'bigint'],
    ['doc', 'json'],
  ],
  insertOnly: ['ins_pos'],
} as const;

describe('core snapshot upserts', () => {
  let db: TestDatabase;
  before(async () => {
    db = await testDatabase();
    await db.pool.query(
      'CREATE TABLE snapshots (id text PRIMARY KEY, label text, amount numeric, flag boolean, seq bigint NOT NULL, ins_pos bigint NOT NULL, doc json NOT NULL)',
    );
  });
  after(async () => db?.drop());

  const upsert = (rows: Record<string, unknown>[]) => inTransaction(db.pool, (tx) => upsertSnapshots(tx, SPEC, rows));
  const stored = async () =>
    (
      await db.pool.query(
        'SELECT id, label, amount::text, flag, seq::int, ins_pos::int, doc FROM snapshots ORDER BY id',
      )
    ).rows;

  it('keeps text with separators, quotes, backslashes, braces and NULL-like words, and documents holding newlines, exactly', async () => {
    const awkward = 'a,b "c" \\d {e} NULL\ttab\nline – ü 🙂';
    const rows = [
      {
        id: 'r1',
        label: awkward,
        amount: '0.10',
        flag: true,
        seq: 1,
        ins_pos: 10,
        doc: { text: awkward, nested: { list: [1, 'x\ny', null] }, empty: '' },
      },
      { id: 'r2', label: null, amount: null, flag: false, seq: 1, ins_pos: 11, doc: { only: 'NULL' } },
      { id: 'r3', label: '', amount: '123456789012.123456789', flag: null, seq: 1, ins_pos: 12, doc: { line: '\n\n' } },
    ];
    const written = await upsert(rows);
    expect(written.map((r) => r.id).sort()).to.deep.equal(['r1', 'r2', 'r3']);
    expect(await stored()).to.deep.equal(rows);
  });

  it('replaces a row from a newer or equal seq only, and never rewrites an insert-only column', async () => {
    const written = await upsert([
      { id: 'r1', label: 'older', amount: '1', flag: true, seq: 0, ins_pos: 99, doc: { v: 'older' } },
      { id: 'r2', label: 'newer', amount: '2', flag: true, seq: 2, ins_pos: 99, doc: { v: 'newer' } },
    ]);
    expect(written.map((r) => r.id)).to.deep.equal(['r2']);
    const rows = await stored();
    expect(rows.find((r) => r.id === 'r1')).to.include({ seq: 1, ins_pos: 10 });
    expect(rows.find((r) => r.id === 'r2')).to.deep.include({
      label: 'newer',
      seq: 2,
      ins_pos: 11,
      doc: { v: 'newer' },
    });
  });

  it('refuses a row whose json column is missing rather than writing a shifted document', async () => {
    let failure: unknown;
    await upsert([{ id: 'r4', label: 'x', amount: '1', flag: true, seq: 1, ins_pos: 13, doc: null }]).catch((error) => {
      failure = error;
    });
    expect(String(failure)).to.match(/snapshots\.doc: a json column of a snapshot row is null/);
    expect((await stored()).map((r) => r.id)).to.deep.equal(['r1', 'r2', 'r3']);
  });
});
