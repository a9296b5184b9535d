/** The process logger's two faces: JSON lines for machines, readable lines for a person at a terminal. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';

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
});
