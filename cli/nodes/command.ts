// `exchange nodes`: the nodes sharing this database, from the registry table every node refreshes
// about every second (cli/nodes/node.ts): id, advertised address, role, journal position, lag
// behind the writer (in journal positions) and the age of its last heartbeat. Reads DATABASE_URL
// (or attaches to the embedded server under DATA_DIR) like the other commands that reach the database.

import type { Command } from 'commander';
import type pg from 'pg';
import { withStore } from '../storeCommand.ts';
import { readWriterLease } from './lease.ts';

export interface NodeListing {
  node_id: string;
  url: string;
  role: string;
  position: string;
  /** Journal positions behind the writer's (null when no node reports being the writer). */
  lag: string | null;
  heartbeat_age_ms: number;
  started_at: string;
  /** Whether this node holds the valid writer lease. */
  lease: boolean;
}

/** Every registered node, the writer first, with its lag behind the writer. */
export async function listNodes(db: pg.Pool): Promise<NodeListing[]> {
  const { rows } = await db.query<{
    node_id: string;
    url: string;
    role: string;
    position: string;
    age_ms: string;
    started_at: Date;
  }>(
    `SELECT node_id, url, role, position, (extract(epoch FROM now() - heartbeat_at) * 1000)::bigint::text AS age_ms, started_at
       FROM exchange_nodes ORDER BY role DESC, started_at`,
  );
  const lease = await readWriterLease(db);
  const writer = rows.find((row) => row.role === 'writer');
  return rows.map((row) => ({
    node_id: row.node_id,
    url: row.url,
    role: row.role,
    position: row.position,
    lag: writer ? String(BigInt(writer.position) - BigInt(row.position)) : null,
    heartbeat_age_ms: Number(row.age_ms),
    started_at: row.started_at.toISOString(),
    lease: lease !== undefined && lease.valid && lease.nodeId === row.node_id,
  }));
}

export function registerNodesCommand(program: Command): void {
  program
    .command('nodes')
    .description('the nodes on this database: role, journal position, lag behind the writer, last heartbeat')
    .option('--json', 'print JSON lines instead of a table')
    .action(async (options: { json?: boolean }) => {
      await withStore(async ({ database }) => {
        const nodes = await listNodes(database.pool);
        if (nodes.length === 0) process.stdout.write('no node has registered on this database\n');
        for (const node of nodes) {
          if (options.json) process.stdout.write(`${JSON.stringify(node)}\n`);
          else
            process.stdout.write(
              `${node.node_id}  ${node.role.padEnd(8)}  position ${node.position}  lag ${node.lag ?? '-'}  heartbeat ${(node.heartbeat_age_ms / 1000).toFixed(1)} s ago  ${node.url}\n`,
            );
        }
      });
    });
}
