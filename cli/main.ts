// The `exchange` command line (commander): serve, projections status|rebuild, events export,
// plus the operator's `admin …` and the engine's `replay` commands registered by their owners.

import { terminalProgress } from './progress.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { v1OpenApiDocument } from '../api/v1/router.ts';
import { Command, InvalidArgumentError } from 'commander';
import { allProjectors } from '../projections/registry.ts';
import { projectionStatus } from '../projections/runner.ts';
import { rebuildProjector } from '../projections/runtime/rebuild.ts';
import { registerAdminCommands } from './admin/index.ts';
import { registerAuditCommand } from './audit.ts';
import { registerNodesCommand } from './nodes/command.ts';
import { registerReplayCommand } from './replay.ts';
import { serve } from './serve.ts';
import { configOrExit, withStore } from './storeCommand.ts';
import { registerWatchCommand } from './watch.ts';

const EXPORT_PAGE_EVENTS = 1000;

function position(value: string): bigint {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number (a global event position)');
  return BigInt(value);
}

function writeLine(line: string): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(`${line}\n`)) resolve();
    else process.stdout.once('drain', resolve);
  });
}

// `exchange events export | head`: a closed pipe ends the export quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('exchange')
    .description('Exchange for binary event contracts: service and operator tools')
    .showHelpAfterError();

  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of /api/v1 (what GET /api/v1/openapi.json serves)')
    .option('--output <file>', 'write it to this file instead of standard output')
    .action(async (options: { output?: string }) => {
      const text = `${JSON.stringify(v1OpenApiDocument(), null, 2)}\n`;
      if (options.output) {
        await mkdir(path.dirname(path.resolve(options.output)), { recursive: true });
        await writeFile(options.output, text);
      } else {
        await writeLine(text.trimEnd());
      }
    });

  program
    .command('serve')
    .description('run the service (HTTP API, engine, projections); configured by environment variables')
    .action(async () => {
      await serve(configOrExit());
    });

  const projections = program.command('projections').description('read-model projectors');
  projections
    .command('status')
    .description('each projector: version, checkpoint position, event-store head and lag')
    .option('--json', 'print JSON lines instead of a table')
    .action(async (options: { json?: boolean }) => {
      await withStore(async ({ database, store }) => {
        const rows = await projectionStatus(database.pool, store, allProjectors());
        for (const row of rows) {
          const record = {
            name: row.name,
            version: row.version,
            stored_version: row.storedVersion ?? null,
            position: Number(row.position),
            head: Number(row.head),
            lag: Number(row.lag),
            updated_at: row.updatedAt?.toISOString() ?? null,
          };
          if (options.json) await writeLine(JSON.stringify(record));
          else {
            const stale =
              row.storedVersion !== undefined && row.storedVersion !== row.version
                ? ' (version changed: rebuilds at start)'
                : '';
            await writeLine(
              `${row.name.padEnd(24)} v${row.version}  position ${record.position}  head ${record.head}  lag ${record.lag}${stale}`,
            );
          }
        }
      });
    });
  projections
    .command('rebuild')
    .description('rebuild one projector (or all) from position zero into fresh tables, swapped in when caught up')
    .argument('[name]', 'projector name (see `projections status`); all when omitted')
    .action(async (name: string | undefined) => {
      await withStore(async ({ database, store }) => {
        const all = allProjectors();
        const chosen = name === undefined ? all : all.filter((projector) => projector.name === name);
        if (chosen.length === 0) {
          process.stderr.write(`unknown projector ${name}; known: ${all.map((p) => p.name).join(', ')}\n`);
          process.exitCode = 1;
          return;
        }
        const head = Number(await store.headPosition());
        for (const projector of chosen) {
          const progress = terminalProgress(`rebuilding ${projector.name}`, Math.max(head, 0), 'positions');
          const result = await rebuildProjector(database.pool, store, projector, {
            onProgress: (position) => progress.update(Number(position)),
          });
          progress.finish();
          await writeLine(`${projector.name}: rebuilt ${result.events} events up to position ${result.position}`);
        }
      });
    });

  const events = program.command('events').description('the event log');
  events
    .command('export')
    .description('write events as JSON lines (one event per line, in global order) to stdout, for auditors')
    .option('--from <position>', 'first global position to export (inclusive; default 0)', position)
    .option('--to <position>', 'last global position to export (inclusive)', position)
    .action(async (options: { from?: bigint; to?: bigint }) => {
      await withStore(async ({ store }) => {
        let after = (options.from ?? 0n) - 1n;
        for (;;) {
          const page = await store.readAll({ after, maxCount: EXPORT_PAGE_EVENTS });
          if (page.length === 0) return;
          for (const event of page) {
            if (options.to !== undefined && event.position > options.to) return;
            await writeLine(
              JSON.stringify({
                position: event.position.toString(),
                stream: event.stream,
                revision: event.revision.toString(),
                id: event.id,
                type: event.type,
                recorded_at: event.recordedAt.toISOString(),
                data: event.data,
                metadata: event.metadata,
              }),
            );
          }
          after = page[page.length - 1]!.position;
        }
      });
    });

  registerAdminCommands(program);
  registerReplayCommand(program);
  registerAuditCommand(program);
  registerWatchCommand(program);
  registerNodesCommand(program);
  return program;
}

await buildProgram().parseAsync(process.argv);
