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
  // Machine lines go out asynchronously, gathered into writes of up to 16 KiB (at the latest after
  // 50 ms): one write per request line costs more than the request itself. What is pending is
  // written when the process exits.
  const sink = human
    ? pretty({ destination: destination ?? 1, sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'hostname' })
    : (destination ?? gathered(pino.destination({ dest: 1, sync: false })));
  return pino(
    { level, timestamp: isoTimeOncePerMs(), serializers: { err: safeError, error: safeError } },
    sink,
  );
}

/**
 * A writer of the info line `logger.info(fields, msg)` would write, for a line written on every
 * request: the fields go through one `JSON.stringify` (pino's general serializer takes twice as long,
 * key by key). For a logger without pino's stream (the Worker's console logger), `logger.info` itself.
 */
export function infoLineWriter(logger: Logger, msg: string): (fields: Record<string, unknown>) => void {
  // pino's browser build, which the Worker bundles, has no symbols.
  const symbols = (pino as { symbols?: typeof pino.symbols }).symbols;
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = symbols && (internals[symbols.streamSym] as DestinationStream | undefined);
  const time = symbols && (internals[symbols.timeSym] as (() => string) | undefined);
  if (!symbols || !stream || !time) return (fields) => logger.info(fields, msg);
  const messageKey = internals[symbols.messageKeySym] as string;
  const head = `{"level":${logger.levels.values.info}`;
  const message = `${JSON.stringify(messageKey)}:${JSON.stringify(msg)}}\n`;
  return (fields) => {
    if (!logger.isLevelEnabled('info')) return;
    // The fields' members, then the message, as pino writes them (a field named like the message too).
    const body = JSON.stringify(fields);
    const members = body.length > 2 ? `${body.slice(1, -1)},` : '';
    stream.write(`${head}${time()}${internals[symbols.chindingsSym] as string},${members}${message}`);
  };
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

/** Most characters of log lines gathered before they are handed to the writer. */
const GATHER_CHARS = 16 * 1024;
/** Longest a gathered line waits for its write, in milliseconds. */
const GATHER_MS = 50;

/**
 * Lines gathered into one string of up to GATHER_CHARS, handed to `sink` at that size or GATHER_MS
 * after the first: sonic-boom measures its whole pending buffer on every write (a few KiB, each
 * time), which cost more per request line than serializing it. Lines not handed over yet at exit go
 * first, then `sink` flushes.
 */
function gathered(sink: SonicBoom): DestinationStream {
  let lines: string[] = [];
  let chars = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const handOver = () => {
    clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    chars = 0;
    sink.write(text);
  };
  process.once('exit', () => {
    handOver();
    sink.flushSync();
  });
  return {
    write(line: string) {
      lines.push(line);
      chars += line.length;
      if (chars >= GATHER_CHARS) handOver();
      else timer ??= setTimeout(handOver, GATHER_MS).unref();
    },
  };
}
