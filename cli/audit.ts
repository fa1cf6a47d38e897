// `exchange audit`: folds the event log from position zero with the read models' fold alone (no
// engine input decided again), checks the money (every transfer balanced, the ledger at zero,
// settled pools empty, each member's cash against its deposits, withdrawals, adjustments, PnL and
// fees) and holds the core read models against the fold (projections/audit). Exit 0 when all
// agree, 1 naming the first difference, 2 on a configuration error.

import type { Command } from 'commander';
import { auditExchange, type AuditReport, type Difference } from '../projections/audit/audit.ts';
import { terminalProgress } from './progress.ts';
import { withStore } from './storeCommand.ts';

const describe = (d: Difference): string => `${d.table} ${d.key}: ${d.column} expected ${d.expected}, found ${d.found}`;

export function auditText(report: AuditReport): string {
  const m = report.money;
  const rows = report.read_models
    ? Object.entries(report.read_models.rows)
        .map(([table, count]) => `${table} ${count}`)
        .join(', ')
    : 'not compared (no core read-model checkpoint)';
  const lines = [
    `audited up to position ${report.position} (head ${report.head})`,
    `journal:       ${report.journal.records} records, ${report.journal.steps} steps, ${report.journal.facts} facts, ${report.journal.trades} trades, ${report.journal.transfers} transfers`,
    `entities:      ${report.entities.members} members, ${report.entities.orders} orders, ${report.entities.fills} fills, ${report.entities.positions} positions, ${report.entities.markets} markets (${report.entities.settled_markets} settled), ${report.entities.ledger_entries} ledger entries`,
    `members' money: deposits ${m.deposits}, withdrawals ${m.withdrawals}, adjustments ${m.adjustments}, realised PnL ${m.realised_pnl}, fees ${m.fees}`,
    `house:         fee revenue ${m.fee_revenue}, outside ${m.outside}, open pools ${m.open_pools}`,
    `read models:   ${rows}`,
  ];
  if (report.read_models && report.read_models.stored_version !== report.read_models.projector_version) {
    lines.push(
      `               (core read models built by projector version ${report.read_models.stored_version}, this is ${report.read_models.projector_version}: the service rebuilds them at its next start)`,
    );
  }
  if (report.ok) {
    lines.push(
      "audit passed: every transfer balanced, the ledger sums to zero, settled pools are empty, every member's cash agrees, the read models equal the fold",
    );
  } else {
    lines.push(
      `AUDIT FAILED: ${report.differences.length} difference(s); the first:`,
      `  ${describe(report.differences[0]!)}`,
    );
    for (const d of report.differences.slice(1)) lines.push(`  then ${describe(d)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function registerAuditCommand(program: Command): void {
  program
    .command('audit')
    .description('fold the event log from position zero and check the money and the read models against it')
    .option('--json', 'print the report as JSON', false)
    .action(async (options: { json: boolean }) => {
      await withStore(async ({ database, store }) => {
        let journal: ReturnType<typeof terminalProgress> | undefined;
        let rows: ReturnType<typeof terminalProgress> | undefined;
        const report = await auditExchange(store, database.pool, {
          journal(position, total) {
            journal ??= terminalProgress('folding the journal', Math.max(Number(total), 0), 'positions');
            journal.update(Number(position));
          },
          readModels(done, total) {
            if (!rows) {
              journal?.finish();
              rows = terminalProgress('comparing read models', total, 'rows');
            }
            rows.update(done);
          },
        });
        (rows ?? journal)?.finish();
        process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : auditText(report));
        if (!report.ok) {
          if (options.json) process.stderr.write(`audit failed: ${describe(report.differences[0]!)}\n`);
          process.exitCode = 1;
        }
      });
    });
}
