// The layers of src/, lowest first: a module imports from its own layer or the ones below, never
// above, and never across folders kept `apart` (CONTRIBUTING.md, "Layout"). eslint.config.js turns this table into import-x's
// no-restricted-paths zones; test/unit/import-layers.test.ts shows a forbidden import fails.
// A path ending in `/` is a folder; a file listed in a lower layer is that layer's even inside a
// higher layer's folder.

export interface Layer {
  name: string;
  /** Folders (ending in `/`) and files, from the repository root. */
  paths: string[];
}

export const layers: Layer[] = [
  { name: 'domain', paths: ['src/domain/'] },
  { name: 'sources', paths: ['src/sources/'] },
  { name: 'checks', paths: ['src/checks/'] },
  {
    name: 'catalog',
    paths: [
      'src/catalog.ts',
      'src/watch-price.ts',
      'src/config.ts',
      'src/logger.ts',
      'src/log-safety.ts',
      'src/lifecycle.ts',
    ],
  },
  { name: 'ops', paths: ['src/ops/'] },
  // What payments and the transports both speak: problem bodies, document paths, the page's files.
  { name: 'vocabulary', paths: ['src/vocabulary/'] },
  // The x402 layer by role: the one reader of an authorization and the chain (Base over a chosen
  // RPC, the RPC fault scope, the embedded development chain); the facilitator role (verify and
  // settle, settler nonces, the broadcast journal); the resource-server role (the paid call, its
  // terms, locks and lost results); and payments.ts, which composes them for the transports.
  {
    name: 'payment authorization and chain',
    paths: ['src/payments/exact-authorization.ts', 'src/payments/chain/'],
  },
  { name: 'payment facilitator', paths: ['src/payments/facilitator/'] },
  { name: 'payment server', paths: ['src/payments/server/'] },
  { name: 'payments composition', paths: ['src/payments/payments.ts'] },
  // A feature beside the checks: its model, runtime and paid work, which both transports serve.
  { name: 'watches', paths: ['src/watches/'] },
  { name: 'transports', paths: ['src/http/', 'src/mcp/', 'src/startup-messages.ts'] },
  // Where the transports meet: the HTTP app with the MCP endpoint mounted at /mcp.
  { name: 'app', paths: ['src/app.ts'] },
  {
    name: 'platforms and entry points',
    paths: [
      'src/redis/',
      'src/sqlite/',
      'src/edge/',
      'src/runners.ts',
      'src/service.ts',
      'src/main.ts',
      'src/stop.ts',
      'src/startup-memory.ts',
      'src/console-capture.ts',
      'src/start.js',
      'src/node-version-check.js',
    ],
  },
];

/** A folder that may reach into another, lower one only through the files named in `through`. */
export interface Port {
  from: string;
  into: string;
  through: string[];
}

export const ports: Port[] = [
  // The resource server asks the facilitator side to settle and how long a settlement may take;
  // the facilitator itself, its nonces and its journal are payments.ts's to wire.
  { from: 'src/payments/server/', into: 'src/payments/facilitator/', through: ['settlement.ts'] },
];

/**
 * Folders of one layer that import nothing of each other: the two transports, which meet in
 * src/app.ts and share only what the layers below them hold (src/vocabulary/, the features).
 */
export const apart: string[][] = [['src/http/', 'src/mcp/']];

/**
 * Packages a folder never imports: the payment roles and the watches speak no transport (their
 * adapters are src/http/payment-gate.ts and src/mcp/paid-tool.ts, src/http/watches/ and
 * src/mcp/watches/).
 */
export const unspokenPackages: { paths: string[]; packages: string[] }[] = [
  { paths: ['src/payments/', 'src/watches/'], packages: ['hono', '@hono/*', '@modelcontextprotocol/*'] },
];
