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
    : (destination ??
      gatheredPerTurn(pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 })));
  return pino(
    { level, timestamp: isoTimeOncePerMs(), serializers: { err: safeError, error: safeError } },
    sink,
  );
}

/**
 * pino's `isoTime`, formatted once per millisecond: under load many lines share one, and formatting
 * a date costs about as much as the rest of a request line.
 */
function isoTimeOncePerMs(): () => string {
  let formattedAt = Number.NaN;
  let formatted = '';
  return () => {
    const now = Date.now();
    if (now !== formattedAt) {
      formattedAt = now;
      formatted = `,"time":"${new Date(now).toISOString()}"`;
    }
    return formatted;
  };
}

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * Lines written in one turn of the event loop, handed to `sink` as one string: sonic-boom measures
 * its whole pending buffer on every write (a few KiB, each time), which cost more per request line
 * than serializing it. Lines not handed over yet at exit go first, then `sink` flushes.
 */
function gatheredPerTurn(sink: SonicBoom): DestinationStream {
  let lines: string[] = [];
  const handOver = () => {
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    sink.write(text);
  };
  process.once('exit', () => {
    if (lines.length === 0) return;
    handOver();
    sink.flushSync();
  });
  return {
    write(line: string) {
      if (lines.push(line) === 1) setImmediate(handOver);
    },
  };
}
