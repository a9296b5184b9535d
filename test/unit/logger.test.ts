/** The process logger's two faces: JSON lines for machines, readable lines for a person at a terminal. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { pino } from 'pino';
import { createLogger, infoLineWriter } from '../../src/logger.ts';

/** A writable stream that keeps what is written. */
function sink(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { text: () => chunks.join('') });
}

describe('createLogger', () => {
  it('writes one JSON object per line by default (not a terminal)', () => {
    const out = sink();
    createLogger('info', out).info({ port: 8080 }, 'listening');
    const entry = JSON.parse(out.text()) as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 30, msg: 'listening', port: 8080 });
    expect(entry.time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('writes readable lines when pretty: time, level, message and fields, no JSON', () => {
    const out = sink();
    createLogger('info', out, { pretty: true }).info({ port: 8080 }, 'listening');
    // eslint-disable-next-line no-control-regex -- strip the colours a terminal would show
    const text = out.text().replace(/\u001b\[[0-9;]*m/g, '');
    expect(text).toMatch(/^\[\d{2}:\d{2}:\d{2}\] INFO \(\d+\): listening\n {4}port: 8080\n$/);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('writes, through infoLineWriter, the very line logger.info writes (time aside)', () => {
    const fields = {
      method: 'GET',
      path: '/v1/"quoted"\\back\u0001slash\u2028é✓',
      status: 200,
      ms: 0.4,
      nan: Number.NaN,
      absent: undefined,
      request_id: 'agent-42',
    };
    const viaPino = sink();
    createLogger('info', viaPino).info(fields, 'request');
    const viaWriter = sink();
    infoLineWriter(createLogger('info', viaWriter), 'request')(fields);
    const timeless = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');
    expect(viaWriter.text()).toMatch(/\n$/);
    expect(timeless(viaWriter.text())).toBe(timeless(viaPino.text()));
  });

  it('writes the line logger.info writes for no fields, only absent ones, and a field named msg', () => {
    const timeless = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');
    for (const fields of [{}, { absent: undefined }, { status: 200, msg: 'overwritten', after: 1 }]) {
      const viaPino = sink();
      createLogger('info', viaPino).info(fields, 'request');
      const viaWriter = sink();
      infoLineWriter(createLogger('info', viaWriter), 'request')(fields);
      expect(timeless(viaWriter.text())).toBe(timeless(viaPino.text()));
      expect(JSON.parse(viaWriter.text())).toMatchObject({ msg: 'request' });
    }
  });

  it('writes nothing below its level, and logs through info when the logger has no pino stream', () => {
    const quiet = sink();
    infoLineWriter(createLogger('warn', quiet), 'request')({ status: 200 });
    expect(quiet.text()).toBe('');
    const seen: unknown[] = [];
    const browserLike = { info: (...args: unknown[]) => seen.push(args) } as unknown as pino.Logger;
    infoLineWriter(browserLike, 'request')({ status: 200 });
    expect(seen).toEqual([[{ status: 200 }, 'request']]);
  });
});
