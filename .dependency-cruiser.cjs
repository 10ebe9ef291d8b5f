// The arrows of the house (docs/architecture.md): from the edges toward the domain, never back.
// `npm test` runs it; a violating import fails the build.
const domain = '^src/disbursements/';
const base = '^src/(observability|http|database)/|^src/config([.](settings|secrets))?[.]ts$';
const adapters = '^src/(store|events|upstream|relay|auth|callbacks|sandbox)/';
const edges = '^src/(graphql|console|exports)/';
// Start-up wiring: the files at the top of src/ (app.ts and its app.*.ts steps, main.ts) but
// config.ts, config.settings.ts and config.secrets.ts, the storage each engine assembles from the adapters (src/storage/), and every `*.main.ts` entry point.
const wiring = '^src/[^/]+[.]ts$|^src/storage/|[.]main[.]ts$';
const config = '^src/config([.](settings|secrets))?[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import circles make load order and ownership unclear.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-stands-alone',
      severity: 'error',
      comment: 'src/disbursements/ imports nothing of the gateway outside itself.',
      from: { path: domain },
      to: { path: '^src/', pathNot: domain },
    },
    {
      name: 'base-imports-no-part',
      severity: 'error',
      comment: 'observability, http, database and config serve every part and know none of them.',
      from: { path: base },
      to: { path: [adapters, edges, wiring], pathNot: config },
    },
    {
      name: 'adapters-import-no-edge',
      severity: 'error',
      comment:
        'Stores, events, the provider client, relays, auth, callbacks and the sandbox know nothing of GraphQL or the wiring.',
      from: { path: adapters, pathNot: wiring },
      to: { path: [edges, wiring], pathNot: config },
    },
    {
      name: 'storage-takes-its-options',
      severity: 'error',
      comment: 'store/, events/ and relay/ get their settings from the wiring, and know no other adapter.',
      from: { path: '^src/(store|events|relay)/' },
      to: { path: [config, '^src/(auth|callbacks|sandbox|upstream|store|events|relay)/'], pathNot: '^src/$1/' },
    },
    {
      name: 'graphql-rooms',
      severity: 'error',
      comment:
        'Inside src/graphql/: transports use operations, and both the shared context and errors at its top; the schema knows neither, and operations know no transport.',
      from: { path: '^src/graphql/(schema|operations)/' },
      to: { path: ['^src/graphql/transports/', '^src/graphql/(schema|operations)/'], pathNot: '^src/graphql/$1/' },
    },
    {
      name: 'edges-import-no-wiring',
      severity: 'error',
      comment:
        'GraphQL, the console route and the exports are assembled by the wiring, not the other way round; an entry point among them still checks the Node line first.',
      from: { path: edges },
      to: { path: wiring, pathNot: [config, '^src/node[.]supported[.]ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|dist-bench|node_modules)/' },
  },
};
