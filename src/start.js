/**
 * `npm start`'s entry: turns on Node's compile cache before the TypeScript service loads. A warm
 * start then reads each module's stripped source and bytecode from the cache (in the system's
 * temporary directory, or `NODE_COMPILE_CACHE`) instead of loading Node's TypeScript stripper,
 * about 12 MiB of memory for the life of the process, and compiling everything again.
 */
import './node-version-check.js';
// The default export: an older Node lacks these functions, and a named import would fail to link
// before the version check could say why.
import nodeModule from 'node:module';

nodeModule.enableCompileCache();
await import('./main.ts');
// Written now, not only at exit, so that a process that is killed still leaves the cache warm.
nodeModule.flushCompileCache();
