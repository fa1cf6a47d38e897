// `exchange replay --verify`: replays the engine journal into a fresh engine and proves that every
// step's output events and the state hash are identical (see engine/verify.ts).

import type { Command } from 'commander';
import { verifyJournal } from '../engine/verify.ts';
import { migrate } from '../eventstore/postgres/migrate.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { terminalProgress } from './progress.ts';
import { openDatabase, openEventStore } from './serve.ts';

export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description('replay the engine journal into a fresh engine')
    .option('--verify', 'check that every step reproduces its journaled events and the state hash matches', false)
    .option('--json', 'print the report as JSON', false)
    .action(async (options: { verify: boolean; json: boolean }) => {
      let config;
      try {
        config = loadConfig();
      } catch (error) {
        if (error instanceof ConfigError) {
          process.stderr.write(`${error.message}\n`);
          process.exit(2);
        }
        throw error;
      }
      const logger = createLogger('warn', { stderr: true });
      const database = await openDatabase(config, logger, { attach: true });
      try {
        await migrate(database.pool);
        const store = await openEventStore(config, database);
        try {
          const head = Number(await store.headPosition());
          const progress = terminalProgress('replaying the journal', Math.max(head, 0), 'positions');
          const report = await verifyJournal(store, config.dataDir, (position) => progress.update(Number(position)));
          progress.finish();
          if (options.json) {
            process.stdout.write(`${JSON.stringify(report)}\n`);
          } else {
            process.stdout.write(
              [
                `steps replayed:     ${report.steps}`,
                ...(report.viewSteps > 0
                  ? [
                      `of them older:      ${report.viewSteps} (record versions before today's facts: re-run, events not compared)`,
                    ]
                  : []),
                `final sequence:     ${report.finalSeq}`,
                `final state hash:   ${report.finalStateHash}`,
                `snapshot:           ${report.snapshot ? `seq ${report.snapshot.seq}, hash ${report.snapshot.matches ? 'matches' : 'DIFFERS'}, resumed replay ${report.snapshot.resumedHashMatches ? 'matches' : 'DIFFERS'}` : 'none'}`,
                `facts folded:       ${report.folded ? (report.folded.matches ? 'final state hash matches' : 'final state hash DIFFERS') : 'not folded (record versions before 4 hold views)'}`,
                `mismatching steps:  ${report.mismatches.length}`,
                ...report.mismatches.map((m) => `  seq ${m.seq}: ${m.reason}`),
                report.ok ? 'verified: every step reproduced its facts' : 'NOT verified',
              ].join('\n') + '\n',
            );
          }
          if (options.verify && !report.ok) process.exitCode = 1;
        } finally {
          await store.close();
        }
      } finally {
        await database.close();
      }
    });
}
