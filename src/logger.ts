/**
 * The process logger: pino with ISO timestamps and errors without stacks. One JSON object per line
 * for machines (a pipe, a file, a log collector); human-readable lines when stdout is a terminal.
 */
import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.ts';
import { safeError } from './log-safety.ts';

/**
 * A pino logger at `level`, writing to `destination` (stdout when absent). `pretty` defaults to
 * whether stdout is a terminal.
 */
export function createLogger(
  level: Config['logLevel'],
  destination?: DestinationStream,
  { pretty: human = !destination && process.stdout.isTTY === true }: { pretty?: boolean } = {},
): Logger {
  // Machine lines go out asynchronously, gathered into writes of a few KiB (at the latest every
  // 100 ms): one write per request line costs more than the request itself. pino flushes what is
  // pending when the process exits.
  const sink = human
    ? pretty({ destination: destination ?? 1, sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'hostname' })
    : (destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 }));
  return pino(
    { level, timestamp: pino.stdTimeFunctions.isoTime, serializers: { err: safeError, error: safeError } },
    sink,
  );
}
