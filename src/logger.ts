/** The process logger: pino, one JSON object per line, ISO timestamps, errors without stacks. */
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.ts';
import { safeError } from './log-safety.ts';

/** A pino logger at `level`, writing to stdout unless a `destination` stream is given. */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  return pino(
    { level, timestamp: pino.stdTimeFunctions.isoTime, serializers: { err: safeError, error: safeError } },
    destination,
  );
}
