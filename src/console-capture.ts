/**
 * Libraries print to the console (the x402 SDK warns about undecodable headers and failed syncs,
 * the Node adapter about aborted requests), sometimes with stack traces and URLs. Their output
 * becomes one redacted JSON log line at debug level instead of raw text on stdout/stderr.
 */
import { format } from 'node:util';
import type { Logger } from 'pino';
import { redactSecrets } from './log-safety.ts';

const METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

export function captureConsole(logger: Logger): void {
  for (const method of METHODS) {
    // eslint-disable-next-line no-console -- this is where library console output is taken over
    console[method] = (...args: unknown[]) => {
      logger.debug({ console: method }, redactSecrets(format(...args)));
    };
  }
}
