/**
 * Loaded with `node --import`: appends the URL of every module the process loads, one a line, to
 * the file named by RECORD_MODULE_LOADS (what test/e2e/startup-modules.test.ts reads).
 */
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.RECORD_MODULE_LOADS;
if (file) {
  registerHooks({
    load(url, context, nextLoad) {
      appendFileSync(file, `${url}\n`);
      return nextLoad(url, context);
    },
  });
}
