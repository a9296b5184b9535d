/** Nothing secret or internal reaches a log line: URLs, signed transactions, keys and stack frames. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { captureConsole } from '../../src/console-capture.ts';
import { redact, safeError } from '../../src/log-safety.ts';
import { createLogger } from '../../src/logger.ts';

const RPC_URL = 'https://base-mainnet.example/v2/SECRETAPIKEY123';
const RAW_TX = `0x02f9019382210580${'ab'.repeat(200)}`;
const KEY = `0x${'4c'.repeat(32)}`;

function viemLikeError(): Error {
  const error = new Error(
    `Transaction creation failed.\n\nURL: ${RPC_URL}\nRequest body: {"method":"eth_sendRawTransaction","params":["${RAW_TX}"]}\n\nDetails: nonce too low\nVersion: viem@2.57.20`,
  );
  error.name = 'TransactionExecutionError';
  error.stack = `${error.message}\n    at sendRawTransaction (/work/main/node_modules/viem/_esm/actions/wallet.js:10:5)`;
  return error;
}

function memoryLogger(level: 'debug' | 'info' = 'debug') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).trim().split('\n'));
      done();
    },
  });
  return { lines, logger: createLogger(level, destination) };
}

const originalConsole = { ...console };
afterEach(() => Object.assign(console, originalConsole));

describe('redact', () => {
  it('removes URLs, long hex and stack frames, on one line', () => {
    const text = redact(viemLikeError().stack ?? '');
    expect(text).not.toContain('SECRETAPIKEY123');
    expect(text).not.toContain(RAW_TX.slice(0, 100));
    expect(text).not.toMatch(/\n|\s+at\s/);
    expect(text).toContain('nonce too low');
  });
});

describe('safeError (the logger err serializer)', () => {
  it('keeps the type and the short message, never the stack, the URL or a key', () => {
    const error = Object.assign(viemLikeError(), { shortMessage: `Transaction creation failed for ${KEY}.` });
    const serialized = safeError(error);
    expect(serialized.type).toBe('TransactionExecutionError');
    expect(JSON.stringify(serialized)).not.toMatch(/SECRETAPIKEY|4c4c4c4c|node_modules|\s+at\s/);
  });

  it('is what the process logger writes for { err }', () => {
    const { lines, logger } = memoryLogger('info');
    logger.error({ err: viemLikeError() }, 'settlement failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/SECRETAPIKEY|abababab|node_modules|"stack"/);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      msg: 'settlement failed',
      err: { type: 'TransactionExecutionError' },
    });
  });
});

describe('captureConsole', () => {
  it('turns library console output into one redacted JSON line at debug level', () => {
    const { lines, logger } = memoryLogger('debug');
    captureConsole(logger);
    // eslint-disable-next-line no-console -- the point of the test
    console.error(viemLikeError());
    // eslint-disable-next-line no-console -- the point of the test
    console.warn('Failed to decode PAYMENT-SIGNATURE header', { url: RPC_URL });
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const entry = JSON.parse(line) as { level: number; msg: string };
      expect(entry.level).toBe(pino.levels.values.debug);
      expect(line).not.toMatch(/SECRETAPIKEY|abababab|node_modules|\\n\s+at\s/);
    }
  });

  it('writes nothing at the default info level', () => {
    const { lines, logger } = memoryLogger('info');
    captureConsole(logger);
    // eslint-disable-next-line no-console -- the point of the test
    console.warn('noise from a library');
    expect(lines).toEqual([]);
  });
});
