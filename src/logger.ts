/** The process logger: pino, one JSON object per line, ISO timestamps. */
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.ts';

/** A pino logger at `level`, writing to stdout unless a `destination` stream is given. */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  return pino({ level, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
