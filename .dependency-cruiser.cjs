// Import rules checked by `npm run check` (dependency-cruiser): no cycles, and the package
// boundaries of style.md §2 — apps depend on packages, never the reverse; each package depends
// only on the packages its job needs.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle makes load order matter and the layers unclear.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'packages-not-to-apps',
      severity: 'error',
      comment: 'Packages are libraries; only apps compose them.',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
    {
      name: 'app-not-to-app',
      severity: 'error',
      comment: 'An app reaches another only through its package entry points (the CLI composes them all).',
      from: { path: '^apps/(indexer|rpc|sample-node|dashboard)/' },
      to: { path: '^apps/(cli)/' },
    },
    {
      name: 'apps-share-through-packages',
      severity: 'error',
      comment: 'Apps share code through packages/; only tests (and the CLI, which composes them) reach into another app.',
      from: { path: '^apps/(indexer|rpc|sample-node|dashboard)/', pathNot: '(\\.test\\.ts$|/_test/)' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'errors-is-a-leaf',
      severity: 'error',
      comment: 'packages/errors holds BaseError and nothing that depends on other code of ours.',
      from: { path: '^packages/errors/' },
      to: { path: '^(packages/(?!errors/)|apps/)' },
    },
    {
      name: 'process-is-a-leaf',
      severity: 'error',
      comment: 'packages/process holds process plumbing (signals, listen, sleep) and depends on no code of ours.',
      from: { path: '^packages/process/' },
      to: { path: '^(packages/(?!process/)|apps/)' },
    },
    {
      name: 'wire-knows-no-jsonrpc',
      severity: 'error',
      comment: 'packages/wire reads and writes bytes; what they mean as JSON-RPC is packages/jsonrpc\'s and the rpc\'s. It depends on no code of ours but packages/errors.',
      from: { path: '^packages/wire/' },
      to: { path: '^(packages/(?!(wire|errors)/)|apps/)' },
    },
    {
      name: 'jsonrpc-config-only-errors',
      severity: 'error',
      comment: 'The JSON-RPC core and the config know nothing of Ethereum, the database or the apps.',
      from: { path: '^packages/(jsonrpc|config)/src/(?!.*\\.test\\.ts$)' },
      to: { path: '^packages/(chain|db)/' },
    },
    {
      name: 'chain-is-pure',
      severity: 'error',
      comment: 'Chain codecs and verification do not touch the database, config or the JSON-RPC core.',
      from: { path: '^packages/chain/src/(?!.*\\.test\\.ts$)' },
      to: { path: '^packages/(db|config|jsonrpc)/' },
    },
    {
      name: 'rpc-reads-below-methods',
      severity: 'error',
      comment: 'The rpc\'s read engine (reads/) serves the method registry (methods/) and the layers above; it never reaches back up to them.',
      from: { path: '^apps/rpc/src/reads/', pathNot: '\\.test\\.ts$' },
      to: { path: '^apps/rpc/src/', pathNot: '^apps/rpc/src/(reads/|protection/|errors\\.ts$)' },
    },
    {
      name: 'rpc-protection-is-low',
      severity: 'error',
      comment: 'The rpc\'s protections (breaker, deadlines, read stall guard, overload) are used by every layer and use none of them.',
      from: { path: '^apps/rpc/src/protection/', pathNot: '\\.test\\.ts$' },
      to: { path: '^apps/rpc/src/', pathNot: '^apps/rpc/src/(protection/|errors\\.ts$)' },
    },
    {
      name: 'chain-index-not-to-accounts',
      severity: 'error',
      comment: 'The chain index (blocks, uncles, networks, reorgs) and accounts share a database, not code: the indexer needs no accounts.',
      from: { path: '^packages/db/src/chain/' },
      to: { path: '^packages/(db/src/accounts/|accounts/)' },
    },
    {
      name: 'accounts-not-to-chain-index',
      severity: 'error',
      comment: 'Accounts (keys, plans, usage, sessions) know nothing of the chain index: the dashboard needs no blocks.',
      from: { path: '^packages/(db/src/accounts/|accounts/)' },
      to: { path: '^packages/db/src/chain/' },
    },
    {
      name: 'db-shared-root-knows-no-context',
      severity: 'error',
      comment: 'The shared root of packages/db (client, migrations, columns, replicas, their errors) serves both contexts and knows neither: what only the chain index or only accounts uses lives in its subpath.',
      from: { path: '^packages/db/src/[^/]+\\.ts$', pathNot: '(\\.test\\.ts$|^packages/db/src/testing\\.ts$)' },
      to: { path: '^packages/db/src/(chain|accounts)/' },
    },
    {
      name: 'product-not-to-testing',
      severity: 'error',
      comment: 'Test helpers stay out of product code.',
      from: {
        path: '^(apps/[^/]+|packages/(?!testing/)[^/]+)/src/',
        pathNot: '(\\.test\\.ts$|/_test/|\\.bench\\.ts$|^packages/db/src/(testing|chain/testFixtures)\\.ts$)',
      },
      to: { path: '^packages/(testing/|db/src/(testing|chain/testFixtures)\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The boundary test's fixture breaks these rules on purpose; it is checked on its own. dist/ is
    // the build's output: the rules are about the sources.
    exclude: { path: '((^|/)node_modules/|/_test/boundaries/|^(apps|packages)/[^/]+/dist[^/]*/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Note: uncle-rpc-source: a workspace package's import resolves to its src/, as in tsc and the tests.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['uncle-rpc-source', 'import', 'require', 'node', 'default'] },
  },
}
