/**
 * The Worker's logger: pino's browser build writing one JSON line per entry to the console, which
 * Workers Logs collect. Same level names, timestamps and redacted error serializer as on Node.
 */
import type { Logger } from 'pino';
import { pino } from 'pino/browser.js';
import type { Config } from '../config.ts';
import { safeError } from '../log-safety.ts';

export function createConsoleLogger(level: Config['logLevel']): Logger {
  return pino({
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: safeError, error: safeError },
    browser: {
      asObject: true,
      serialize: true,
      write: (entry: object) => console.log(JSON.stringify(entry)),
    },
  }) as unknown as Logger;
}
